// RUN: tilec-opt %s --tilec-gpu-module-to-binary='format=isa bf16-compares-in-f32=1' | FileCheck %s
// RUN: tilec-opt %s --tilec-gpu-module-to-binary='format=isa' | FileCheck %s --check-prefix=AS-IS
// RUN: not tilec-opt %s --tilec-gpu-module-to-binary='format=fatbin' 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: tilec-opt %s --tilec-gpu-module-to-binary='format=ll bf16-compares-in-f32=1' | FileCheck %s --check-prefix=LL

// A kernel that flushes f32 denormals compares bf16 values, a scalar pair
// and a vector pair: in f32, after the optimizer, which would fold an
// earlier extension back. As it is, LLVM's NVPTX back end writes the
// flushing modifier ptxas rejects for bf16.
// CHECK: gpu.binary @kernels
// CHECK-NOT: .ftz.bf16
// CHECK: setp.gt.ftz.f32
// CHECK-NOT: .ftz.bf16
// AS-IS: setp.gt.ftz.bf16
// FORMAT: error: unknown format 'fatbin': expected bin, isa, ll or bc
// format=ll keeps the LLVM IR the back end would compile, repaired.
// LL: gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, {{.*}}offload = "{{.*}}define ptx_kernel void @compare{{.*}}fcmp ogt float
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    llvm.func @compare(%x: bf16, %y: bf16, %u: vector<2xbf16>, %v: vector<2xbf16>, %p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel, denormal_fp_math_f32 = "preserve-sign,preserve-sign"} {
      %gt = llvm.fcmp "ogt" %x, %y : bf16
      %eq = llvm.fcmp "oeq" %u, %v : vector<2xbf16>
      %e0 = llvm.mlir.constant(0 : i32) : i32
      %b = llvm.extractelement %eq[%e0 : i32] : vector<2xi1>
      %both = llvm.and %gt, %b : i1
      %w = llvm.zext %both : i1 to i8
      llvm.store %w, %p : i8, !llvm.ptr<1>
      llvm.return
    }
  }
}
