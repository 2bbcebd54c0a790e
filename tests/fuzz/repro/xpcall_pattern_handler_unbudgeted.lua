xpcall(function() return ("a"):rep(100):find(("a?"):rep(100) .. ("a"):rep(100)) end,
       function() while true do end end)
