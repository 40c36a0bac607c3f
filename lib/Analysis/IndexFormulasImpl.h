//===- IndexFormulasImpl.h - What the IndexFormulas sources share -*- C++
//-*-===//
//
// Part of tilec. The Z3 context and solver of an IndexFormulas, and the
// helpers of its sources.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_ANALYSIS_INDEXFORMULASIMPL_H
#define TILEC_LIB_ANALYSIS_INDEXFORMULASIMPL_H

#include "tilec/Analysis/IndexFormulas.h"

#include <z3.h>

namespace tilec {

namespace detail {
inline Z3_ast toAst(void *ast) { return static_cast<Z3_ast>(ast); }
inline void *fromAst(Z3_ast ast) { return static_cast<void *>(ast); }

/// Z3 reports misuse through this handler; the default one may exit. The
/// translation only builds well-sorted terms, so an error is a bug, which
/// the error code left behind makes a query's answer Unknown.
inline void ignoreErrors(Z3_context, Z3_error_code) {}

/// Bounds beyond these count as unknown, so that sums and products of
/// bounds cannot overflow.
inline constexpr int64_t kBoundLimit = int64_t(1) << 62;

inline std::optional<int64_t> bounded(__int128 value) {
  if (value > kBoundLimit || value < -kBoundLimit)
    return std::nullopt;
  return static_cast<int64_t>(value);
}
} // namespace detail

/// Making a Z3 context takes milliseconds, more than most kernels' proofs:
/// the IndexFormulas made on a thread share one, which is made anew once
/// none is alive and kMaxUses have used it, so that its terms do not pile
/// up in a long-lived process.
class SharedContext {
public:
  static Z3_context acquire() {
    SharedContext &shared = get();
    if (shared.ctx && !shared.alive && shared.uses >= kMaxUses)
      shared.reset();
    if (!shared.ctx) {
      Z3_config config = Z3_mk_config();
      shared.ctx = Z3_mk_context(config);
      Z3_del_config(config);
      Z3_set_error_handler(shared.ctx, detail::ignoreErrors);
    }
    ++shared.uses;
    ++shared.alive;
    return shared.ctx;
  }
  static void release() { --get().alive; }

  ~SharedContext() { reset(); }

private:
  static constexpr unsigned kMaxUses = 64;
  static SharedContext &get() {
    thread_local SharedContext shared;
    return shared;
  }
  void reset() {
    if (ctx)
      Z3_del_context(ctx);
    ctx = nullptr;
    uses = 0;
  }
  Z3_context ctx = nullptr;
  unsigned uses = 0, alive = 0;
};

struct IndexFormulas::Impl {
  Z3_context ctx;
  Z3_solver solver;
  Z3_sort intSort;
  Z3_sort boolSort;

  explicit Impl(unsigned resourceLimit) : ctx(SharedContext::acquire()) {
    intSort = Z3_mk_int_sort(ctx);
    boolSort = Z3_mk_bool_sort(ctx);
    solver = Z3_mk_solver_for_logic(ctx, Z3_mk_string_symbol(ctx, "QF_LIA"));
    Z3_solver_inc_ref(ctx, solver);
    Z3_params params = Z3_mk_params(ctx);
    Z3_params_inc_ref(ctx, params);
    // A resource limit rather than a time limit: the same answers on every
    // machine, and no timer thread per query.
    Z3_params_set_uint(ctx, params, Z3_mk_string_symbol(ctx, "rlimit"),
                       resourceLimit);
    Z3_solver_set_params(ctx, solver, params);
    Z3_params_dec_ref(ctx, params);
  }
  ~Impl() {
    Z3_solver_dec_ref(ctx, solver);
    SharedContext::release();
  }
  bool failed() const { return Z3_get_error_code(ctx) != Z3_OK; }
};

} // namespace tilec

#endif // TILEC_LIB_ANALYSIS_INDEXFORMULASIMPL_H
