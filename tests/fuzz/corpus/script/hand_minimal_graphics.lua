local pso = require "pso"
return pso.graphics { vs = pso.shader { bytes = "DXBC" } }
