#!/bin/bash
# A real kernel WARNING while this test runs (vmtest_warn.ko, added by
# tests/vm/selftest): this test, and only this one, ends with status 3.
echo xt-batch-marker >/dev/kmsg
insmod /root/vmtest_warn.ko && echo "PASS loaded the warning module"
