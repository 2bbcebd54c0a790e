local pso = require "pso"
return pso.graphics { name = "bad\255name", vs = pso.shader { bytes = "x" } }
