# Rule lines for revision 1 of libxt_cgroup2, which run-t.sh runs as
# against today's module (see there): the syntax of revision 0
# (cgroup2.t) in 512 bytes of patterns, as much as -m cgroup's path.
:OUTPUT,INPUT,POSTROUTING
-m cgroup2 --path web;=;OK
-m cgroup2 --path system.slice;-m cgroup2 --path "system.slice";OK
-m cgroup2 --path "system.slice/*.service";=;OK
-m cgroup2 --path "user.slice/**/app-{a,b}.scope";=;OK
-m cgroup2 ! --path a --path b --path "c/*";=;OK
-m cgroup2 --path "say \"hi\"";=;OK
-m cgroup2 --path "raw/ÿþ";=;OK
-m cgroup2;;FAIL;cgroup2: --path PATTERN is required
-m cgroup2 --path a ! --path b;;FAIL;cgroup2: "!" before the second or a later --path
-m cgroup2 --path "a//b";;FAIL;cgroup2: --path "a//b": has an empty component ("//")
-m cgroup2 --path "%{*a*128}";;FAIL;needs more than 256 matcher states
# limits: 512 bytes for the set with one NUL after each pattern, so any
# path of -m cgroup (511 bytes) fits; 64 patterns, as in revision 0
-m cgroup2 --path %{a*511};=;OK
-m cgroup2 --path "%{\"*511}";=;OK
-m cgroup2 --path %{a*255} --path %{b*255};=;OK
-m cgroup2%{ --path p*64};=;OK
-m cgroup2 --path %{a*512};;FAIL;does not fit: the patterns of one rule take at most 512 bytes, one NUL after each (XT_CGROUP2_REVISION=0 in the environment gives 2048, at 4 times the memory a rule)
-m cgroup2 --path %{a*255} --path %{b*255} --path c;;FAIL;cgroup2: --path "c": does not fit: the patterns of one rule take at most 512 bytes
-m cgroup2%{ --path p*65};;FAIL;cgroup2: --path "p": one --path too many: a rule holds at most 64 patterns
:INPUT
-m cgroup2 --path "system.slice/*";=;OK
:POSTROUTING
-m cgroup2 ! --path "system.slice/*";=;OK
