# Rule lines for libxt_cgroup2, run by run-t.sh (see there for the format).
:OUTPUT,INPUT,POSTROUTING
# plain names: bare in the save form when xtables_save_string needs no quotes
-m cgroup2 --path web;=;OK
-m cgroup2 --path system.slice;-m cgroup2 --path "system.slice";OK
-m cgroup2 --path "system.slice/sshd.service";=;OK
-m cgroup2 --path /;-m cgroup2 --path "/";OK
-m cgroup2 --path "/system.slice/";=;OK
-m cgroup2 --path -x;=;OK
# globs
-m cgroup2 --path "system.slice/*.service";=;OK
-m cgroup2 --path "user.slice/**";=;OK
-m cgroup2 --path "**/app.scope";=;OK
-m cgroup2 --path "a/?/[a-z]x/[!x]y/[^x]z";=;OK
-m cgroup2 --path "system.slice/{web,db}.service";=;OK
-m cgroup2 --path "a\\*b";=;OK
-m cgroup2 --path a\*b;-m cgroup2 --path "a\\*b";OK
# several patterns, inversion
-m cgroup2 --path a --path "b/c";=;OK
-m cgroup2 ! --path "a/b";=;OK
-m cgroup2 ! --path a --path b --path "c/*";=;OK
-m cgroup2 --path a --path a;=;OK
-m cgroup2 --path a ! --path b;;FAIL;cgroup2: "!" before the second or a later --path
-m cgroup2 ! --path a ! --path b;;FAIL;cgroup2: "!" before the second or a later --path
# bytes that need quoting
-m cgroup2 --path "with space/x";=;OK
-m cgroup2 --path "say \"hi\"";=;OK
-m cgroup2 --path "it's";-m cgroup2 --path "it\'s";OK
-m cgroup2 --path "back\\\\slash";=;OK
-m cgroup2 --path "user@1000.service";=;OK
-m cgroup2 --path "!";=;OK
-m cgroup2 ! --path "!x";=;OK
-m cgroup2 --path "a;b";=;OK
-m cgroup2 --path "a,b";=;OK
-m cgroup2 --path "#x";=;OK
-m cgroup2 --path "dienst/Ã¼â‚¬";=;OK
-m cgroup2 --path "raw/ÿþ";=;OK
# limits: 1023 bytes a pattern (iptables-restore reads no longer argument),
# 64 patterns, 2048 bytes for the set with one NUL after each pattern
-m cgroup2 --path %{a*1023};=;OK
-m cgroup2 --path "%{\"*1023}";=;OK
-m cgroup2 --path %{a*1023} --path %{b*1023};=;OK
-m cgroup2%{ --path p*64};=;OK
-m cgroup2 --path %{a*1024};;FAIL;cgroup2: --path "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...": is too long: 1024 bytes, at most 1023
-m cgroup2%{ --path p*65};;FAIL;cgroup2: --path "p": one --path too many: a rule holds at most 64 patterns
-m cgroup2 --path %{a*1023} --path %{b*1023} --path c;;FAIL;cgroup2: --path "c": does not fit: the patterns of one rule take at most 2048 bytes
# bad patterns
-m cgroup2;;FAIL;cgroup2: --path PATTERN is required
-m cgroup2 --path "";;FAIL;cgroup2: --path "": is empty
-m cgroup2 --path "a/[b";;FAIL;cgroup2: --path "a/[b": has an unterminated "["
-m cgroup2 --path "a/{b";;FAIL;cgroup2: --path "a/{b": has an unterminated "{"
-m cgroup2 --path "a}b";;FAIL;cgroup2: --path "a}b": has a "}" without "{"
-m cgroup2 --path "{a,{b}}";;FAIL;has a "{" inside "{...}"
-m cgroup2 --path "{a/b}";;FAIL;has a "/" inside "{...}"
-m cgroup2 --path "[z-a]";;FAIL;has a reversed range inside "[...]"
-m cgroup2 --path "a//b";;FAIL;cgroup2: --path "a//b": has an empty component ("//")
-m cgroup2 --path "a/./b";;FAIL;cgroup2: --path "a/./b": has a "." or ".." component
-m cgroup2 --path "..";;FAIL;cgroup2: --path "..": has a "." or ".." component
-m cgroup2 --path .;;FAIL;cgroup2: --path ".": has a "." or ".." component
-m cgroup2 --path "a\\";;FAIL;cgroup2: --path "a\\": ends a component with a lone "\"
-m cgroup2 --path "tab	x";;FAIL;cgroup2: --path "tab\x09x": contains a control character (byte 0x09)
-m cgroup2 --path "del";;FAIL;cgroup2: --path "del\x7f": contains a control character (byte 0x7f)
# the matcher's state budget: 256 a pattern, 512 a rule (literals cost none)
-m cgroup2 --path "**/%{*?*127}b";=;OK
-m cgroup2 --path "**/%{*?*127}b" --path "x/%{*a*127}c";=;OK
-m cgroup2 --path "**/%{*?*127}b" --path "x/%{*a*127}c" --path "%{a*200}/b";=;OK
-m cgroup2 --path "%{*a*128}";;FAIL;cgroup2: --path "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a...": needs more than 256 matcher states
-m cgroup2 --path "**/%{*?*127}b" --path "x/%{*a*127}c" --path "y/*";;FAIL;cgroup2: --path "y/*": brings the patterns of this rule to 514 matcher states, more than 512: spread them over several rules
# a pattern is checked once a process and then priced from memory: still summed
-m cgroup2 --path "x/%{*a*100}c" --path "x/%{*a*100}c" --path "x/%{*a*100}c";;FAIL;cgroup2: --path "x/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a...": brings the patterns of this rule to 606 matcher states, more than 512: spread them over several rules
# tables: a row per set of states alive at once, 254 rows at most
-m cgroup2 --path "x/*a??????";=;OK
-m cgroup2 --path "x/*a???????";;FAIL;cgroup2: --path "x/*a???????": compiles to more than 254 matcher states in a component or 8 KiB of matcher tables
-m cgroup2 --path "%{*a??????/*22}";;FAIL;cgroup2: --path "*a??????/*a??????/*a??????/*a??????/*a??????/*a??????/*a??????/*...": compiles to more than 254 matcher states in a component or 8 KiB of matcher tables
-m cgroup2 --path;;FAIL;requires an argument
-m cgroup2 --paths x;;FAIL;unknown option
# other chains the kernel match allows
:INPUT
-m cgroup2 --path "system.slice/*";=;OK
:POSTROUTING
-m cgroup2 ! --path "system.slice/*";=;OK
