# Target lines for libxt_CGROUP2LOG, run by run-t.sh (see there for the format).
:OUTPUT,INPUT,POSTROUTING
# LOG mode: the default level (warning) is not saved, as for LOG
-j CGROUP2LOG;=;OK
-j CGROUP2LOG --log-prefix "svc: ";=;OK
-j CGROUP2LOG --log-prefix svc:;-j CGROUP2LOG --log-prefix "svc:";OK
-j CGROUP2LOG --log-level 4;-j CGROUP2LOG;OK
-j CGROUP2LOG --log-level warning;-j CGROUP2LOG;OK
-j CGROUP2LOG --log-level info;-j CGROUP2LOG --log-level 6;OK
-j CGROUP2LOG --log-level 0;=;OK
-j CGROUP2LOG --log-level 7;=;OK
-j CGROUP2LOG --log-level 8;;FAIL
-j CGROUP2LOG --log-level loud;;FAIL
-j CGROUP2LOG --log-tcp-sequence --log-tcp-options --log-ip-options --log-uid --log-macdecode;=;OK
-j CGROUP2LOG --log-uid --log-tcp-sequence;-j CGROUP2LOG --log-tcp-sequence --log-uid;OK
-j CGROUP2LOG --log-prefix "web: " --log-level 6 --log-ip-options;=;OK
# the prefix: 31 bytes at most, not empty, no newline
-j CGROUP2LOG --log-prefix "%{x*31}";-j CGROUP2LOG --log-prefix %{x*31};OK
-j CGROUP2LOG --log-prefix "%{x*32}";;FAIL
-j CGROUP2LOG --log-prefix "";;FAIL
-j CGROUP2LOG --log-prefix "say \"hi\" ";=;OK
# NFLOG mode
-j CGROUP2LOG --nflog-group 5;=;OK
-j CGROUP2LOG --nflog-group 0;=;OK
-j CGROUP2LOG --nflog-group 65535;=;OK
-j CGROUP2LOG --nflog-group 65536;;FAIL
-j CGROUP2LOG --log-prefix "svc: " --nflog-group 5 --nflog-size 128 --nflog-threshold 10;=;OK
-j CGROUP2LOG --nflog-range 64;-j CGROUP2LOG --nflog-group 0 --nflog-size 64;OK
-j CGROUP2LOG --nflog-threshold 3;-j CGROUP2LOG --nflog-group 0 --nflog-threshold 3;OK
-j CGROUP2LOG --nflog-size 1 --nflog-range 2;;FAIL
# the modes do not mix
-j CGROUP2LOG --nflog-group 5 --log-level 3;;FAIL;CGROUP2LOG: --log-level and --log-* flags (LOG mode) exclude --nflog-* options (NFLOG mode)
-j CGROUP2LOG --log-uid --nflog-group 5;;FAIL;exclude --nflog-* options
# with the match
-m cgroup2 --path "system.slice/*.service" -j CGROUP2LOG --log-prefix "svc: ";=;OK
