#!/usr/bin/env bash
# check_device_object.sh OBJECT: the object nvcc built from element_ops_on_device.cu holds GPU code (a fat binary)
# and a kernel for every element type and op (10 types x 4 ops, and 10 divides).
set -euo pipefail
object="$1"
# Read the whole listing first: `readelf | grep -q` fails under pipefail when grep stops reading early (SIGPIPE).
sections="$(readelf -S "$object")"
grep -q '\.nv_fatbin' <<< "$sections" || { echo "no .nv_fatbin section: no device code in $object"; exit 1; }
combine=$(nm -C "$object" | grep -cE ' [tT] void kcoll::\(anonymous namespace\)::CombineKernel<' || true)
divide=$(nm -C "$object" | grep -cE ' [tT] void kcoll::\(anonymous namespace\)::DivideKernel<' || true)
echo "device kernels: $combine combine, $divide divide"
[[ "$combine" -eq 40 && "$divide" -eq 10 ]] || { echo "expected 40 combine and 10 divide kernels"; exit 1; }
