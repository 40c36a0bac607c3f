// RUN: tilec-opt %s --tile-set-target="chip=sm_90a shared-memory=232448 features=mma_sync,async_copy,tma,wgmma" | FileCheck %s
// RUN: tilec-opt %s --tile-set-target="chip=sm_90a shared-memory=232448 features=mma_sync,async_copy,tma,wgmma" | tilec-opt | FileCheck %s
// RUN: tilec-opt %s --tile-set-target | FileCheck %s --check-prefix=GENERIC
// RUN: not tilec-opt %s --tile-set-target=features=tensor_cores 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// The target the tile passes read, on the module.
// CHECK: module attributes {tile.target = #tile.target<chip = "sm_90a", warp_size = 32, shared_memory = 232448, registers = 255, features = "mma_sync | async_copy | tma | wgmma">}
// GENERIC: module attributes {tile.target = #tile.target<chip = "generic", warp_size = 32, shared_memory = 0, registers = 255, features = none>}
// UNKNOWN: error: unknown target feature 'tensor_cores'; the features are mma_sync, async_copy, tma, wgmma, warp_specialization, mfma and mfma_fp8_fnuz
func.func @f() {
  return
}
