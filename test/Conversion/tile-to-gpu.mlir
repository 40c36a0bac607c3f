// RUN: tilec-opt %s --split-input-file --convert-tile-to-gpu | FileCheck %s

// The kernel body moves into a gpu.func; the host function keeps the grid
// computation and launches it. A tensor travels as a bare, 16-byte aligned,
// non-aliasing pointer and is re-shaped inside with the dynamic extents.
// Shared buffers are views into the dynamic shared memory at 128-byte
// aligned offsets; local buffers are allocas in the private address space.
// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @kernel
// CHECK-SAME: (%[[A:.*]]: memref<?x64xf16> {tile.dims = array<i64: 2, -1>}, %[[ALPHA:.*]]: f32, %[[M:.*]]: index)
// CHECK: %[[GRID:.*]] = arith.ceildivsi %[[M]], %c32
// CHECK: %[[PTR:.*]] = builtin.unrealized_conversion_cast %[[A]] : memref<?x64xf16> to memref<f16, #gpu.address_space<global>>
// CHECK: %[[SMEM:.*]] = arith.constant 4128 : i32
// CHECK: gpu.launch_func @tilec_kernels::@kernel blocks in (%[[GRID]], %c2, %c1{{.*}}) threads in (%c64, %c2{{.*}}, %c1{{.*}}) dynamic_shared_memory_size %[[SMEM]] args(%[[PTR]] : memref<f16, #gpu.address_space<global>>, %[[ALPHA]] : f32, %[[M]] : index)
// CHECK: gpu.module @tilec_kernels
// CHECK: gpu.func @kernel(%[[KA:.*]]: memref<f16, #gpu.address_space<global>> {llvm.align = 16 : i64, llvm.noalias}, %[[KALPHA:.*]]: f32, %[[KM:.*]]: index) kernel
// CHECK-SAME: known_block_size = array<i32: 64, 2, 1>
// CHECK-SAME: tile.shared_memory_bytes = 4128 : i64
// CHECK: %[[DSM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[L:.*]] = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
// CHECK: %[[TENSOR:.*]] = memref.reinterpret_cast %[[KA]] to offset: [0], sizes: [%[[KM]], 64], strides: [64, 1]
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: %[[BY:.*]] = gpu.block_id y
// CHECK: %[[S:.*]] = memref.view %[[DSM]][%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[T:.*]] = memref.view %[[DSM]][%c4096][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %[[V:.*]] = memref.load %[[TENSOR]][%[[BX]], %[[BY]]]
// CHECK: memref.store %[[V]], %[[S]]
// CHECK: memref.store %[[KALPHA]], %[[T]]
// CHECK: memref.store %[[KALPHA]], %[[L]]
// CHECK: gpu.return
// CHECK-NOT: tile.
func.func @kernel(%a: memref<?x64xf16> {tile.dims = array<i64: 2, -1>}, %alpha: f32, %m: index) {
  %c32 = arith.constant 32 : index
  %c2 = arith.constant 2 : index
  %grid = arith.ceildivsi %m, %c32 : index
  tile.kernel blocks(%bx, %by) in (%grid, %c2) threads(64, 2) {
    %s = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    %t = tile.alloc_shared : memref<8xf32, #tile.shared>
    %l = tile.alloc_local : memref<4xf32, #tile.local>
    %c0 = arith.constant 0 : index
    %v = memref.load %a[%bx, %by] : memref<?x64xf16>
    memref.store %v, %s[%c0, %c0] : memref<32x64xf16, #tile.shared>
    memref.store %alpha, %t[%c0] : memref<8xf32, #tile.shared>
    memref.store %alpha, %l[%c0] : memref<4xf32, #tile.local>
  }
  return
}

// -----

// Buffers on the stack are allocated once, at the kernel's start, wherever
// they were: an alloca elsewhere is a dynamic one to LLVM, which AMDGPU
// cannot select, nor an alloca outside its private address space. Views of
// them are private too; a variable's initial value is stored where it was.
// CHECK-LABEL: gpu.func @stack
// CHECK-NEXT: %[[R:.*]] = memref.alloca() : memref<8xf32, #gpu.address_space<private>>
// CHECK-NEXT: %[[L:.*]] = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
// CHECK-NEXT: %[[V:.*]] = memref.alloca() : memref<i32, #gpu.address_space<private>>
// CHECK-NOT: memref.alloca
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[V]][] : memref<i32, #gpu.address_space<private>>
// CHECK: memref.subview %[[R]][4] [4] [1] : memref<8xf32, #gpu.address_space<private>> to memref<4xf32, strided<[1], offset: 4>, #gpu.address_space<private>>
// CHECK: memref.store %{{.*}}, %[[L]]
func.func @stack(%out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    scf.for %i = %c0 to %c4 step %c1 {
      %r = memref.alloca() : memref<8xf32>
      %l = tile.alloc_local : memref<4xf32, #tile.local>
      %zero = arith.constant 0 : i32
      %v = tile.alloc_var init(%zero : i32) : memref<i32, #tile.local>
      %half = memref.subview %r[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
      %x = memref.load %half[%i] : memref<4xf32, strided<[1], offset: 4>>
      memref.store %x, %l[%i] : memref<4xf32, #tile.local>
      %y = memref.load %l[%c0] : memref<4xf32, #tile.local>
      memref.store %y, %out[%i] : memref<4xf32>
    }
  }
  return
}

// -----

// T.use_swizzle: block indices are remapped in panels of 4 rows, walking
// the panels' columns back and forth, with the grid's extents as the launch
// computes them (here the argument %n).
// CHECK-LABEL: gpu.func @swizzled
// CHECK-SAME: %[[GX:[^:]*]]: index
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: %[[BY:.*]] = gpu.block_id y
// CHECK-NOT: gpu.grid_dim
// CHECK: %[[ROWS:.*]] = arith.muli %[[BY]], %[[GX]]
// CHECK: %[[LINEAR:.*]] = arith.addi %[[BX]], %[[ROWS]]
// CHECK: %[[PANEL_SIZE:.*]] = arith.muli %c4, %[[GX]]
// CHECK: %[[PANEL:.*]] = arith.divui %[[LINEAR]], %[[PANEL_SIZE]]
// CHECK: %[[OFFSET:.*]] = arith.remui %[[LINEAR]], %[[PANEL_SIZE]]
// CHECK: %[[ODD:.*]] = arith.cmpi ne
// CHECK: %[[COL:.*]] = arith.select %[[ODD]]
// CHECK: memref.store %{{.*}}[%[[COL]]]
func.func @swizzled(%a: memref<64xindex>, %n: index) {
  %c8 = arith.constant 8 : index
  tile.kernel blocks(%bx, %by) in (%n, %c8) threads(32) {
    tile.use_swizzle panel(4) order(row)
    memref.store %by, %a[%bx] : memref<64xindex>
  }
  return
}

// -----

// Values the kernel uses from the host side are recomputed inside it.
// CHECK-LABEL: func.func @recomputed
// CHECK: gpu.launch_func @tilec_kernels::@recomputed {{.*}} args(%{{.*}} : memref<f32, #gpu.address_space<global>>, %arg1 : index)
// CHECK: gpu.func @recomputed
// CHECK: %[[TWICE:.*]] = arith.muli %arg1, %c2
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[TWICE]]]
func.func @recomputed(%a: memref<64xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %x = arith.constant 1.0 : f32
  %twice = arith.muli %n, %c2 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    memref.store %x, %a[%twice] : memref<64xf32>
  }
  return
}

// -----

// Tensor maps become the kernel's last arguments, one per distinct map
// (two ops of one map share it), marked with what the header encodes; the
// host side makes them for the launch. A swizzled tile starts at a
// multiple of its swizzle's period: 1024 bytes after the 24-byte barriers.
// CHECK-LABEL: func.func @maps
// CHECK: %[[HOSTMAP:.*]] = tile.tensor_map %[[B:.*]] box [32, 64] swizzle(128) : memref<1024x1024xf16> -> !llvm.ptr
// CHECK: gpu.launch_func @tilec_kernels::@maps {{.*}} args(%{{.*}} : memref<f16, #gpu.address_space<global>>, %{{.*}} : memref<f16, #gpu.address_space<global>>, %[[HOSTMAP]] : !llvm.ptr)
// CHECK: gpu.func @maps(%{{.*}}: memref<f16, #gpu.address_space<global>> {llvm.align = 16 : i64, llvm.noalias}, %{{.*}}: memref<f16, #gpu.address_space<global>> {llvm.align = 16 : i64, llvm.noalias}, %[[MAP:.*]]: !llvm.ptr {tile.tensor_map = {box = array<i64: 32, 64>, swizzle = 128 : i64, tensor = 1 : i64}})
// CHECK-SAME: tile.shared_memory_bytes = 9216 : i64
// CHECK: memref.view %{{.*}}[%c1024{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x128xf16, #gpu.address_space<workgroup>>
// CHECK: llvm.load %[[MAP]]
// CHECK: llvm.load %[[MAP]]
// CHECK-NOT: tile.tensor_map
#panels = #tile.shared_layout<[32, 128], (d0, d1) -> ((d1 floordiv 64) * 2048 + d0 * 64 + d1 mod 64), swizzle = <bits = 3, base = 3, shift = 3>>
func.func @maps(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %m0 = tile.tensor_map %b box [32, 64] swizzle(128) : memref<1024x1024xf16> -> !llvm.ptr
    %m1 = tile.tensor_map %b box [32, 64] swizzle(128) : memref<1024x1024xf16> -> !llvm.ptr
    %bars = tile.alloc_shared : memref<3xi64, #tile.shared>
    %s = tile.alloc_shared {layout = #panels} : memref<32x128xf16, #tile.shared>
    %x = llvm.load %m0 : !llvm.ptr -> i32
    %y = llvm.load %m1 : !llvm.ptr -> i32
  }
  return
}

// -----

// A warp-specialized kernel launches a producer warpgroup after its 256
// threads: the producer lowers its registers to 40 and its first thread
// runs the producer code; the consumers raise theirs to 232 (what the 64K
// registers leave them) and synchronize on named barrier 1 over
// themselves. The common part before the split stays a block barrier.
// CHECK-LABEL: func.func @roles
// CHECK: gpu.launch_func @tilec_kernels::@roles {{.*}} threads in (%c384{{.*}}, %c1{{.*}}, %c1{{.*}})
// CHECK: gpu.func @roles({{.*}}) kernel attributes {known_block_size = array<i32: 384, 1, 1>, {{.*}}nvvm.minctasm = 1 : i32
// CHECK: gpu.barrier
// CHECK: %[[TID:.*]] = gpu.thread_id x upper_bound 384
// CHECK: %[[PRODUCER:.*]] = arith.cmpi uge, %[[TID]], %c256
// CHECK: scf.if %[[PRODUCER]] {
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c256
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT:   memref.store %{{.*}}, %{{.*}}[%c0
// CHECK: } else {
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK: memref.store
// CHECK-NOT: gpu.barrier
// CHECK-NOT: tile.warp_specialize
func.func @roles(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    gpu.barrier
    tile.warp_specialize producer {
      memref.store %one, %a[%c0] : memref<4xf32>
    } consumer {
      gpu.barrier
      memref.store %one, %a[%c1] : memref<4xf32>
    }
  }
  return
}

// -----

// T.disable_warp_group_reg_alloc() keeps the launch's register budgets.
// CHECK-LABEL: func.func @kept_budget
// CHECK: known_block_size = array<i32: 384, 1, 1>
// CHECK-NOT: nvvm.setmaxregister
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
func.func @kept_budget(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) attributes {keep_register_budget} {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    tile.warp_specialize producer {
      memref.store %one, %a[%c0] : memref<4xf32>
    } consumer {
      gpu.barrier
      memref.store %one, %a[%c1] : memref<4xf32>
    }
  }
  return
}

// -----

// One consumer warpgroup has registers enough: no reallocation.
// CHECK-LABEL: func.func @one_consumer
// CHECK: known_block_size = array<i32: 256, 1, 1>
// CHECK-NOT: nvvm.setmaxregister
func.func @one_consumer(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    tile.warp_specialize producer {
      memref.store %one, %a[%c0] : memref<4xf32>
    } consumer {
      memref.store %one, %a[%c1] : memref<4xf32>
    }
  }
  return
}

// -----

// A function's kernels launch in order, each a gpu.func of its own named
// <function>_<i>; where another function has that name, a prefixed one.
// CHECK-LABEL: func.func @blocks(
// CHECK:         gpu.launch_func @tilec_kernels::@tilec_kernel_blocks_0 blocks in (%{{.*}}) threads in (%c32,
// CHECK:         gpu.launch_func @tilec_kernels::@blocks_1 blocks in (%{{.*}}) threads in (%c64,
// CHECK-LABEL: func.func @blocks_0(
// CHECK:         gpu.launch_func @tilec_kernels::@blocks_0
// CHECK-DAG:   gpu.func @tilec_kernel_blocks_0(
// CHECK-DAG:   gpu.func @blocks_1(
// CHECK-DAG:   gpu.func @blocks_0(
func.func @blocks(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    memref.store %x, %a[%c0] : memref<64xf32>
  }
  tile.kernel blocks(%bx) in (%c2) threads(64) {
    memref.store %x, %a[%c0] : memref<64xf32>
  }
  return
}
func.func @blocks_0(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    memref.store %x, %a[%c0] : memref<64xf32>
  }
  return
}

// -----

// A view of a tensor, made in the kernel, views global memory as the
// tensor does.
// CHECK-LABEL: gpu.func @tensor_view
// CHECK: %[[T:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [4, 8, 16], strides: [128, 16, 1]
// CHECK: %[[V:.*]] = memref.reinterpret_cast %[[T]] to offset: [0], sizes: [32, 16], strides: [16, 1] : memref<4x8x16xf32, strided<[128, 16, 1]>, #gpu.address_space<global>> to memref<32x16xf32, #gpu.address_space<global>>
// CHECK: memref.store %{{.*}}, %[[V]]
func.func @tensor_view(%a: memref<4x8x16xf32>, %x: f32) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %v = memref.reinterpret_cast %a to offset: [0], sizes: [32, 16], strides: [16, 1] : memref<4x8x16xf32> to memref<32x16xf32>
    memref.store %x, %v[%c0, %c0] : memref<32x16xf32>
  }
  return
}
