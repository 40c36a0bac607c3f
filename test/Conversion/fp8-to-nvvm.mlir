// RUN: tilec-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(tilec-convert-fp8-to-nvvm))' | FileCheck %s

// Widening: each pair of 8-bit floats is one cvt to two halves; an odd
// last element converts beside a copy of itself. f16 holds every value, so
// the step to f32 (and through f32 to bf16) is an exact arith.extf.
// CHECK-LABEL: gpu.func @widen
// CHECK-SAME: (%[[X:.*]]: f8E4M3FN, %[[V:.*]]: vector<3xf8E5M2>)
// CHECK: %[[XB:.*]] = arith.bitcast %[[X]] : f8E4M3FN to i8
// CHECK: %[[XP:.*]] = vector.from_elements %[[XB]], %[[XB]] : vector<2xi8>
// CHECK: %[[XH:.*]] = nvvm.convert.f8x2.to.f16x2 %[[XP]] : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK: %[[X0:.*]] = vector.extract %[[XH]][0]
// CHECK: arith.extf %[[X0]] : f16 to f32
// CHECK: %[[VB:.*]] = arith.bitcast %[[V]] : vector<3xf8E5M2> to vector<3xi8>
// CHECK-COUNT-2: nvvm.convert.f8x2.to.f16x2 %{{.*}} : vector<2xi8>(f8E5M2) -> vector<2xf16>
// CHECK: %[[VH:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}} : vector<3xf16>
// CHECK: %[[VF:.*]] = arith.extf %[[VH]] : vector<3xf16> to vector<3xf32>
// CHECK: arith.truncf %[[VF]] : vector<3xf32> to vector<3xbf16>
// CHECK: %[[C:.*]] = nvvm.convert.f8x2.to.f16x2 %{{.*}} : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK-NEXT: %[[C0:.*]] = vector.extract %[[C]][0]
// CHECK-NEXT: gpu.return %{{.*}}, %{{.*}}, %[[C0]]
gpu.module @kernels {
  gpu.func @widen(%x: f8E4M3FN, %v: vector<3xf8E5M2>) -> (f32, vector<3xbf16>, f16) {
    %a = arith.extf %x : f8E4M3FN to f32
    %b = arith.extf %v : vector<3xf8E5M2> to vector<3xbf16>
    %c = arith.extf %x : f8E4M3FN to f16
    gpu.return %a, %b, %c : f32, vector<3xbf16>, f16
  }
}

// -----

// Narrowing: cvt.rn.satfinite of f32 pairs, the first operand into the high
// byte; f16 and bf16 widen to f32 first (exactly). f64 sources and the FNUZ
// formats are left to tilec-expand-fp8.
// CHECK-LABEL: gpu.func @narrow
// CHECK-SAME: (%[[F:.*]]: f32, %[[G:.*]]: f32, %[[H:.*]]: vector<2xbf16>, %[[D:.*]]: f64)
// CHECK: %[[P:.*]] = nvvm.convert.f32x2.to.f8x2 %[[F]], %[[F]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E4M3FN)
// CHECK: %[[B:.*]] = vector.extract %[[P]][0]
// CHECK: arith.bitcast %[[B]] : i8 to f8E4M3FN
// CHECK: %[[HF:.*]] = arith.extf %[[H]] : vector<2xbf16> to vector<2xf32>
// CHECK: %[[H0:.*]] = vector.extract %[[HF]][0]
// CHECK: %[[H1:.*]] = vector.extract %[[HF]][1]
// CHECK: nvvm.convert.f32x2.to.f8x2 %[[H1]], %[[H0]] {{.*}} : vector<2xi8>(f8E5M2)
// CHECK: arith.truncf %[[D]] : f64 to f8E4M3FN
// CHECK: arith.truncf %[[G]] : f32 to f8E4M3FNUZ
gpu.module @kernels {
  gpu.func @narrow(%f: f32, %g: f32, %h: vector<2xbf16>, %d: f64)
      -> (f8E4M3FN, vector<2xf8E5M2>, f8E4M3FN, f8E4M3FNUZ) {
    %a = arith.truncf %f : f32 to f8E4M3FN
    %b = arith.truncf %h : vector<2xbf16> to vector<2xf8E5M2>
    %c = arith.truncf %d : f64 to f8E4M3FN
    %e = arith.truncf %g : f32 to f8E4M3FNUZ
    gpu.return %a, %b, %c, %e : f8E4M3FN, vector<2xf8E5M2>, f8E4M3FN, f8E4M3FNUZ
  }
}
