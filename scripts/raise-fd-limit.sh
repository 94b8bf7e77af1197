#!/usr/bin/env bash
# Runs a command with the open-file soft limit raised to the hard limit, where that is allowed:
# a held wallet is a socket on our side and on the server's, and the default soft limit (often
# 1024) would cap `load --hold` and the lab's servers long before memory does.
ulimit -S -n "$(ulimit -H -n)" 2>/dev/null || true
exec "$@"
