#!/bin/sh
# Starts one of the test engines (its file name, then its arguments) as a
# child of this shell, as wrapper scripts often do: killing this shell
# alone would leave the engine running.
engine="$(dirname "$0")/$1"
shift
python3 "$engine" "$@"
exit $?
