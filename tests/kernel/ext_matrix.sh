#!/usr/bin/env bash
# The extension across front ends: {iptables-legacy, iptables-nft} x {IPv4,
# IPv6}, each the whole row of tests/lib/ext_matrix.sh.
. "$(dirname "$0")/../lib/vmtest.sh"
need_module
. "$(dirname "$0")/../lib/ext_matrix.sh"
matrix_cgroups

front iptables-legacy iptables-legacy-save iptables-legacy-restore 127.0.0.1 9931
front iptables-nft iptables-nft-save iptables-nft-restore 127.0.0.1 9932
front ip6tables-legacy ip6tables-legacy-save ip6tables-legacy-restore ::1 9933
front ip6tables-nft ip6tables-nft-save ip6tables-nft-restore ::1 9934
finish
