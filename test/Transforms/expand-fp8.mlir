// RUN: tilec-opt %s --tilec-expand-fp8 --canonicalize --split-input-file | FileCheck %s

// Conversions of constants, expanded and then folded by the canonicalizer:
// the folded results are what the integer arithmetic computes. Widening is
// exact: the largest e4m3, a subnormal, NaN, -0, e5m2 into f16, e5m2's
// infinity and its smallest subnormal.
// CHECK-LABEL: func.func @widen
// CHECK-DAG: %[[MAX:.*]] = arith.constant 4.480000e+02 : f32
// CHECK-DAG: %[[SUB:.*]] = arith.constant 0.001953125 : f32
// CHECK-DAG: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK-DAG: %[[NEGZERO:.*]] = arith.constant -0.000000e+00 : f32
// CHECK-DAG: %[[HALF:.*]] = arith.constant -7.500000e-01 : f16
// CHECK-DAG: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK-DAG: %[[TINY:.*]] = arith.constant 1.52587891E-5 : f32
// CHECK-DAG: %[[DOUBLE:.*]] = arith.constant 3.500000e+00 : f64
// CHECK: return %[[MAX]], %[[SUB]], %[[NAN]], %[[NEGZERO]], %[[HALF]], %[[INF]], %[[TINY]], %[[DOUBLE]]
func.func @widen() -> (f32, f32, f32, f32, f16, f32, f32, f64) {
  %max = arith.constant 448.0 : f8E4M3FN
  %sub = arith.constant 0.001953125 : f8E4M3FN
  %nan = arith.constant 0x7F : f8E4M3FN
  %negzero = arith.constant -0.0 : f8E4M3FN
  %e5 = arith.constant -0.75 : f8E5M2
  %inf = arith.constant 0x7C : f8E5M2
  %tiny = arith.constant 0x01 : f8E5M2
  %three = arith.constant 3.5 : f8E4M3FN
  %0 = arith.extf %max : f8E4M3FN to f32
  %1 = arith.extf %sub : f8E4M3FN to f32
  %2 = arith.extf %nan : f8E4M3FN to f32
  %3 = arith.extf %negzero : f8E4M3FN to f32
  %4 = arith.extf %e5 : f8E5M2 to f16
  %5 = arith.extf %inf : f8E5M2 to f32
  %6 = arith.extf %tiny : f8E5M2 to f32
  %7 = arith.extf %three : f8E4M3FN to f64
  return %0, %1, %2, %3, %4, %5, %6, %7 : f32, f32, f32, f32, f16, f32, f32, f64
}

// -----

// Narrowing rounds to nearest even and saturates: 464 (beyond 448, where
// the next e4m3 would be) and infinities to +-448, e5m2's beyond 57344 to
// it; ties between 0.5 and 0.5625 and between 0.5625 and 0.625 go to the
// even codes, half the smallest subnormal to 0, one and a half of it to
// twice it; NaN stays NaN; f16 and f64 sources go through f32.
// CHECK-LABEL: func.func @narrow
// CHECK-DAG: %[[MAX:.*]] = arith.constant 4.480000e+02 : f8E4M3FN
// CHECK-DAG: %[[NEGMAX:.*]] = arith.constant -4.480000e+02 : f8E4M3FN
// CHECK-DAG: %[[E5MAX:.*]] = arith.constant 5.734400e+04 : f8E5M2
// CHECK-DAG: %[[DOWN:.*]] = arith.constant 5.000000e-01 : f8E4M3FN
// CHECK-DAG: %[[UP:.*]] = arith.constant 6.250000e-01 : f8E4M3FN
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f8E4M3FN
// CHECK-DAG: %[[TWO:.*]] = arith.constant 3.906250e-03 : f8E4M3FN
// CHECK-DAG: %[[NAN:.*]] = arith.constant 0x7F : f8E4M3FN
// CHECK-DAG: %[[HALF:.*]] = arith.constant -1.250000e+00 : f8E5M2
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f8E4M3FN
// CHECK: return %[[MAX]], %[[MAX]], %[[NEGMAX]], %[[E5MAX]], %[[DOWN]], %[[UP]], %[[ZERO]], %[[TWO]], %[[NAN]], %[[HALF]], %[[ONE]]
func.func @narrow() -> (f8E4M3FN, f8E4M3FN, f8E4M3FN, f8E5M2, f8E4M3FN,
                        f8E4M3FN, f8E4M3FN, f8E4M3FN, f8E4M3FN, f8E5M2,
                        f8E4M3FN) {
  %above = arith.constant 464.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %neginf = arith.constant 0xFF800000 : f32
  %big = arith.constant 1.0e+9 : f32
  %tieDown = arith.constant 0.53125 : f32
  %tieUp = arith.constant 0.59375 : f32
  %halfSub = arith.constant 0.0009765625 : f32
  %oneAndHalfSub = arith.constant 0.0029296875 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %h = arith.constant -1.25 : f16
  %d = arith.constant 1.0 : f64
  %0 = arith.truncf %above : f32 to f8E4M3FN
  %1 = arith.truncf %inf : f32 to f8E4M3FN
  %2 = arith.truncf %neginf : f32 to f8E4M3FN
  %3 = arith.truncf %big : f32 to f8E5M2
  %4 = arith.truncf %tieDown : f32 to f8E4M3FN
  %5 = arith.truncf %tieUp : f32 to f8E4M3FN
  %6 = arith.truncf %halfSub : f32 to f8E4M3FN
  %7 = arith.truncf %oneAndHalfSub : f32 to f8E4M3FN
  %8 = arith.truncf %nan : f32 to f8E4M3FN
  %9 = arith.truncf %h : f16 to f8E5M2
  %10 = arith.truncf %d : f64 to f8E4M3FN
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10
      : f8E4M3FN, f8E4M3FN, f8E4M3FN, f8E5M2, f8E4M3FN, f8E4M3FN, f8E4M3FN,
        f8E4M3FN, f8E4M3FN, f8E5M2, f8E4M3FN
}

// -----

// Vectors keep their shape; conversions of other types are left alone.
// CHECK-LABEL: func.func @vectors
// CHECK-SAME: (%[[X:.*]]: vector<4xf8E4M3FN>, %[[Y:.*]]: vector<4xf32>, %[[H:.*]]: f16)
// CHECK: %[[BYTES:.*]] = arith.bitcast %[[X]] : vector<4xf8E4M3FN> to vector<4xi8>
// CHECK: arith.extui %[[BYTES]] : vector<4xi8> to vector<4xi32>
// CHECK: arith.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
// CHECK: arith.trunci %{{.*}} : vector<4xi32> to vector<4xi8>
// CHECK: arith.bitcast %{{.*}} : vector<4xi8> to vector<4xf8E5M2>
// CHECK: arith.extf %[[H]] : f16 to f32
// CHECK-NOT: f8E4M3FN to
// CHECK-NOT: to f8
func.func @vectors(%x: vector<4xf8E4M3FN>, %y: vector<4xf32>, %h: f16)
    -> (vector<4xf32>, vector<4xf8E5M2>, f32) {
  %0 = arith.extf %x : vector<4xf8E4M3FN> to vector<4xf32>
  %1 = arith.truncf %y : vector<4xf32> to vector<4xf8E5M2>
  %2 = arith.extf %h : f16 to f32
  return %0, %1, %2 : vector<4xf32>, vector<4xf8E5M2>, f32
}

// -----

// FNUZ (gfx942's matrix cores): bias 8 (e4m3) and 16 (e5m2), no
// infinities, 0x80 the one NaN. Widening: 0x7F is the finite 240, 0x80
// NaN, 0xFF -240. Narrowing saturates infinities to 240 and 57344, NaN to
// 0x80, and a negative value that rounds to zero to +0: there is no -0.
// CHECK-LABEL: func.func @fnuz
// CHECK-DAG: %[[MAX:.*]] = arith.constant 2.400000e+02 : f32
// CHECK-DAG: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK-DAG: %[[NEGMAX:.*]] = arith.constant -2.400000e+02 : f32
// CHECK-DAG: %[[SAT:.*]] = arith.constant 2.400000e+02 : f8E4M3FNUZ
// CHECK-DAG: %[[E5SAT:.*]] = arith.constant 5.734400e+04 : f8E5M2FNUZ
// CHECK-DAG: %[[NANBYTE:.*]] = arith.constant 0x80 : f8E4M3FNUZ
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f8E4M3FNUZ
// CHECK: return %[[MAX]], %[[NAN]], %[[NEGMAX]], %[[SAT]], %[[E5SAT]], %[[NANBYTE]], %[[ZERO]]
func.func @fnuz() -> (f32, f32, f32, f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3FNUZ,
                      f8E4M3FNUZ) {
  %max = arith.constant 0x7F : f8E4M3FNUZ
  %nan = arith.constant 0x80 : f8E4M3FNUZ
  %negmax = arith.constant 0xFF : f8E4M3FNUZ
  %inf = arith.constant 0x7F800000 : f32
  %nanf = arith.constant 0x7FC00000 : f32
  %tiny = arith.constant -1.0e-30 : f32
  %0 = arith.extf %max : f8E4M3FNUZ to f32
  %1 = arith.extf %nan : f8E4M3FNUZ to f32
  %2 = arith.extf %negmax : f8E4M3FNUZ to f32
  %3 = arith.truncf %inf : f32 to f8E4M3FNUZ
  %4 = arith.truncf %inf : f32 to f8E5M2FNUZ
  %5 = arith.truncf %nanf : f32 to f8E4M3FNUZ
  %6 = arith.truncf %tiny : f32 to f8E4M3FNUZ
  return %0, %1, %2, %3, %4, %5, %6 : f32, f32, f32, f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3FNUZ, f8E4M3FNUZ
}
