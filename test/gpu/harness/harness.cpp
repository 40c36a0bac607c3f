// One GPU test program per kernel configuration. run.py compiles it with
// the kernel's generated header included (-include) and the configuration
// as macros: TEST_<KIND> and the shape. Each program fills fresh random
// inputs, poisons the outputs, launches through the header, and compares
// with a float64 reference computed here.
#include "common.h"

#include <algorithm>

#ifndef TEST_NAME
#define TEST_NAME "kernel"
#endif

#if defined(TEST_ADD)
// C = A + B over an TEST_M x TEST_N tensor of DTYPE_F16 ? half : float.
static bool run(Context &ctx) {
  const size_t count = size_t(TEST_M) * TEST_N;
  std::vector<float> a = ctx.uniform(count), b = ctx.uniform(count);
#ifdef DTYPE_F16
  a = roundHalf(a);
  b = roundHalf(b);
  Buffer A(count, 2), B(count, 2), C(count, 2);
  A.upload(toHalf(a).data());
  B.upload(toHalf(b).data());
#else
  Buffer A(count, 4), B(count, 4), C(count, 4);
  A.upload(a.data());
  B.upload(b.data());
#endif
  C.poison();
  CHECK(LAUNCH(elementwise_add, A.ptr, B.ptr, C.ptr));
  SYNC();
  std::vector<double> got(count), want(count);
#ifdef DTYPE_F16
  std::vector<uint16_t> c(count);
  C.download(c.data());
  for (size_t i = 0; i < count; ++i) {
    got[i] = halfToFloat(c[i]);
    want[i] = double(a[i]) + double(b[i]);
  }
  return compare(TEST_NAME, got, want, 1e-3, 1e-3, ctx.seed);
#else
  std::vector<float> c(count);
  C.download(c.data());
  for (size_t i = 0; i < count; ++i) {
    got[i] = c[i];
    want[i] = double(a[i]) + double(b[i]);
  }
  return compare(TEST_NAME, got, want, 1e-6, 1e-6, ctx.seed);
#endif
}

#elif defined(TEST_COPY2D)
// Y = X through shared memory, Z = 2 X through a fragment, for several
// run-time shapes.
static bool run(Context &ctx) {
  bool ok = true;
  const int64_t shapes[][2] = {
      {256, 256}, {100, 37}, {1, 1}, {65, 129}, {1000, 3}};
  for (auto [m, n] : shapes) {
    size_t count = size_t(m) * n;
    std::vector<float> x = ctx.uniform(count);
    Buffer X(count, 4), Y(count, 4), Z(count, 4);
    X.upload(x.data());
    Y.poison();
    Z.poison();
    CHECK(LAUNCH(copy2d, X.ptr, Y.ptr, Z.ptr, m, n));
    SYNC();
    std::vector<float> y(count), z(count);
    Y.download(y.data());
    Z.download(z.data());
    std::vector<double> want = widen(x), twice(count);
    for (size_t i = 0; i < count; ++i)
      twice[i] = 2.0 * x[i];
    std::string shape = std::to_string(m) + "x" + std::to_string(n);
    ok &= compare(std::string(TEST_NAME) + " shared " + shape, widen(y), want,
                  0, 0, ctx.seed);
    ok &= compare(std::string(TEST_NAME) + " fragment " + shape, widen(z),
                  twice, 0, 0, ctx.seed);
  }
  // Arguments the header must refuse.
  Buffer X(16, 4);
  ok &= LAUNCH(copy2d, 0, X.ptr, X.ptr, 4, 4) == INVALID_VALUE;
  ok &= LAUNCH(copy2d, X.ptr + 4, X.ptr, X.ptr, 4, 4) == INVALID_VALUE;
  ok &= LAUNCH(copy2d, X.ptr, X.ptr, X.ptr, 0, 4) == INVALID_VALUE;
  // 2^32 elements: more than 32-bit indexing reaches.
  ok &= LAUNCH(copy2d, X.ptr, X.ptr, X.ptr, 65536, 65536) == INVALID_VALUE;
  // A grid taller than 65535 blocks.
  ok &= LAUNCH(copy2d, X.ptr, X.ptr, X.ptr, 64 * 70000, 1) == INVALID_VALUE;
  std::printf("%s %-48s\n", ok ? "PASS" : "FAIL",
              (std::string(TEST_NAME) + " argument checks").c_str());
  return ok;
}

#elif defined(TEST_ATOMIC_REGION)
// Y[b, s, h, :] += X[b, s, h, :] from each of 4 blocks at once, over
// Y = 1: Y = 1 + 4 X exactly (small integers), for lengths with and without
// a tail block of rows.
static bool run(Context &ctx) {
  bool ok = true;
  const int batch = 2, heads = 3, dim = 64, splits = 4;
  for (int64_t length : {256, 100, 1}) {
    size_t count = size_t(batch) * length * heads * dim;
    std::vector<float> x(count), ones(count, 1.0f);
    std::vector<float> noise = ctx.uniform(count);
    for (size_t i = 0; i < count; ++i)
      x[i] = std::floor(noise[i] * 8);
    Buffer X(count, 4), Y(count, 4);
    X.upload(x.data());
    Y.upload(ones.data());
    CHECK(LAUNCH(atomic_region, X.ptr, Y.ptr, length));
    SYNC();
    std::vector<float> y(count);
    Y.download(y.data());
    std::vector<double> want(count);
    for (size_t i = 0; i < count; ++i)
      want[i] = 1.0 + splits * double(x[i]);
    ok &= compare(std::string(TEST_NAME) + " n=" + std::to_string(length),
                  widen(y), want, 0, 0, ctx.seed);
  }
  return ok;
}

#elif defined(TEST_STREAMK)
// C = A @ B^T by stream-K blocks whose run-time while loops add partial
// tiles into C = 0 with atomics; against float64 on the CPU.
static bool run(Context &ctx) {
  const size_t m = TEST_M, n = TEST_N, k = TEST_K;
  std::vector<float> a = roundHalf(ctx.uniform(m * k)),
                     b = roundHalf(ctx.uniform(n * k));
  Buffer A(m * k, 2), B(n * k, 2), C(m * n, 4);
  A.upload(toHalf(a).data());
  B.upload(toHalf(b).data());
  std::vector<float> zeros(m * n, 0.0f);
  C.upload(zeros.data());
  CHECK(LAUNCH(streamk, A.ptr, B.ptr, C.ptr));
  SYNC();
  std::vector<float> c(m * n);
  C.download(c.data());
  std::vector<double> want(m * n, 0.0);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j)
      for (size_t p = 0; p < k; ++p)
        want[i * n + j] += double(a[i * k + p]) * double(b[j * k + p]);
  return compare(TEST_NAME, widen(c), want, 1e-3, 1e-4, ctx.seed);
}

#elif defined(TEST_CUMSUM)
// Y = the prefix sums of X within each 64-row tile, along CUMSUM_DIM (suffix
// sums with CUMSUM_REVERSE); against float64 on the CPU.
static bool run(Context &ctx) {
  const int m = TEST_M, n = TEST_N, tile = 64;
  std::vector<float> x = roundHalf(ctx.uniform(size_t(m) * n));
  Buffer X(size_t(m) * n, 2), Y(size_t(m) * n, 4);
  X.upload(toHalf(x).data());
  Y.poison();
  CHECK(LAUNCH(cumsum_tile, X.ptr, Y.ptr));
  SYNC();
  std::vector<float> y(size_t(m) * n);
  Y.download(y.data());
  std::vector<double> want(size_t(m) * n);
  auto at = [&](int r, int c) { return size_t(r) * n + c; };
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c) {
      // The sum runs from the start of the row (or of the tile's column) to
      // this element, or from it to the end.
      int pos = CUMSUM_DIM == 1 ? c : r;
      int begin = CUMSUM_DIM == 1 ? 0 : r / tile * tile;
      int end = CUMSUM_DIM == 1 ? n : std::min(begin + tile, m);
      int lo = CUMSUM_REVERSE ? pos : begin;
      int hi = CUMSUM_REVERSE ? end : pos + 1;
      double sum = 0;
      for (int k = lo; k < hi; ++k)
        sum += CUMSUM_DIM == 1 ? x[at(r, k)] : x[at(k, c)];
      want[at(r, c)] = sum;
    }
  return compare(TEST_NAME, widen(y), want, 1e-4, 1e-5, ctx.seed);
}

#elif defined(TEST_THREADS2D)
// Y = 2 X in even columns, X + 1 in odd columns of even rows, -X elsewhere
// (rows and columns within the block's 128x128 tile, which the tensor's
// shape cuts).
static bool run(Context &ctx) {
  size_t count = size_t(TEST_M) * TEST_N;
  std::vector<float> x = ctx.uniform(count);
  Buffer X(count, 4), Y(count, 4);
  X.upload(x.data());
  Y.poison();
  CHECK(LAUNCH(branchy, X.ptr, Y.ptr));
  SYNC();
  std::vector<float> y(count);
  Y.download(y.data());
  std::vector<double> want(count);
  for (int r = 0; r < TEST_M; ++r)
    for (int c = 0; c < TEST_N; ++c) {
      double v = x[size_t(r) * TEST_N + c];
      want[size_t(r) * TEST_N + c] = c % 2 == 0   ? 2 * v
                                     : r % 2 == 0 ? v + 1
                                                  : -v;
    }
  return compare(TEST_NAME, widen(y), want, 0, 0, ctx.seed);
}

#elif defined(TEST_COPY3D)
// O[b, s, h, :] = Q[b, s, h, :] + h for a [3, 200, 5, 64] half tensor.
static bool run(Context &ctx) {
  const int batch = 3, seq = 200, heads = 5, dim = 64;
  size_t count = size_t(batch) * seq * heads * dim;
  std::vector<float> q = roundHalf(ctx.uniform(count));
  Buffer Q(count, 2), O(count, 2);
  Q.upload(toHalf(q).data());
  O.poison();
  CHECK(LAUNCH(copy3d, Q.ptr, O.ptr));
  SYNC();
  std::vector<uint16_t> o(count);
  O.download(o.data());
  std::vector<double> got(count), want(count);
  for (size_t i = 0; i < count; ++i) {
    int h = int((i / dim) % heads);
    got[i] = halfToFloat(o[i]);
    want[i] = halfToFloat(floatToHalf(q[i] + float(h)));
  }
  return compare(TEST_NAME, got, want, 1e-3, 1e-3, ctx.seed);
}

#elif defined(TEST_REDUCE)
// R[i] = reduce(X[i, :]) with REDUCE_KIND, combined with 0.75 unless CLEAR.
static bool run(Context &ctx) {
  size_t count = size_t(TEST_M) * TEST_N;
  std::vector<float> x = ctx.uniform(count, -4, 4);
#if defined(REDUCE_BF16) && REDUCE_BF16
  // The kernel holds the rows in bfloat16: the reference reduces them so
  // rounded (to nearest even), in double.
  for (float &v : x) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    bits = (bits + 0x7fff + ((bits >> 16) & 1)) & 0xffff0000u;
    std::memcpy(&v, &bits, 4);
  }
#endif
  Buffer X(count, 4), R(TEST_M, 4);
  X.upload(x.data());
  R.poison();
  CHECK(LAUNCH(rows, X.ptr, R.ptr));
  SYNC();
  std::vector<float> r(TEST_M);
  R.download(r.data());
  std::vector<double> want(TEST_M);
  std::string kind = REDUCE_KIND;
  for (int i = 0; i < TEST_M; ++i) {
    double acc = kind == "max" || kind == "absmax" ? -INFINITY
                 : kind == "min"                   ? INFINITY
                                                   : 0.0;
    if (kind == "absmax")
      acc = 0;
    for (int j = 0; j < TEST_N; ++j) {
      double v = x[size_t(i) * TEST_N + j];
      if (kind == "sum")
        acc += v;
      else if (kind == "abssum")
        acc += std::fabs(v);
      else if (kind == "max")
        acc = std::max(acc, v);
      else if (kind == "min")
        acc = std::min(acc, v);
      else
        acc = std::max(acc, std::fabs(v));
    }
    if (!CLEAR) {
      if (kind == "sum" || kind == "abssum")
        acc += 0.75;
      else if (kind == "min")
        acc = std::min(acc, 0.75);
      else
        acc = std::max(acc, 0.75);
    }
    want[i] = acc;
  }
  // A float sum of N terms of magnitude <= 4 drifts from the exact sum by
  // about 2^-24 * N one sigma when added in order (the host adds in order, a
  // GPU in a tree), so a row summing to nearly zero needs that much slack.
  bool sums = kind == "sum" || kind == "abssum";
  double atol = sums ? 1e-4 + std::ldexp(4.0 * TEST_N, -24) : 1e-4;
  return compare(TEST_NAME, widen(r), want, atol, 1e-5, ctx.seed);
}

#elif defined(TEST_RMSNORM)
// Y = X / sqrt(mean(X^2) + eps) * W in half precision.
static bool run(Context &ctx) {
  size_t count = size_t(TEST_M) * TEST_N;
  std::vector<float> x = roundHalf(ctx.uniform(count)),
                     w = roundHalf(ctx.uniform(TEST_N, 0.5, 1.5));
  Buffer X(count, 2), W(TEST_N, 2), Y(count, 2);
  X.upload(toHalf(x).data());
  W.upload(toHalf(w).data());
  Y.poison();
  CHECK(LAUNCH(rms_norm, X.ptr, W.ptr, Y.ptr));
  SYNC();
  std::vector<uint16_t> y(count);
  Y.download(y.data());
  std::vector<double> got(count), want(count);
  for (int i = 0; i < TEST_M; ++i) {
    double sum = 0;
    for (int j = 0; j < TEST_N; ++j)
      sum += double(x[size_t(i) * TEST_N + j]) * x[size_t(i) * TEST_N + j];
    double inv = 1.0 / std::sqrt(sum / TEST_N + 1e-6);
    for (int j = 0; j < TEST_N; ++j) {
      size_t k = size_t(i) * TEST_N + j;
      got[k] = halfToFloat(y[k]);
      want[k] = x[k] * inv * w[j];
    }
  }
  return compare(TEST_NAME, got, want, 2e-3, 4e-3, ctx.seed);
}

#elif defined(TEST_SOFTMAX)
// Y = softmax(X) along rows, in half precision.
static bool run(Context &ctx) {
  size_t count = size_t(TEST_M) * TEST_N;
  std::vector<float> x = roundHalf(ctx.uniform(count, -8, 8));
  Buffer X(count, 2), Y(count, 2);
  X.upload(toHalf(x).data());
  Y.poison();
  CHECK(LAUNCH(softmax, X.ptr, Y.ptr));
  SYNC();
  std::vector<uint16_t> y(count);
  Y.download(y.data());
  std::vector<double> got(count), want(count);
  for (int i = 0; i < TEST_M; ++i) {
    double mx = -INFINITY, sum = 0;
    for (int j = 0; j < TEST_N; ++j)
      mx = std::max(mx, double(x[size_t(i) * TEST_N + j]));
    for (int j = 0; j < TEST_N; ++j)
      sum += std::exp(x[size_t(i) * TEST_N + j] - mx);
    for (int j = 0; j < TEST_N; ++j) {
      size_t k = size_t(i) * TEST_N + j;
      got[k] = halfToFloat(y[k]);
      want[k] = std::exp(x[k] - mx) / sum;
    }
  }
  return compare(TEST_NAME, got, want, 1e-4, 4e-3, ctx.seed);
}

#elif defined(TEST_GEMM)
// C = A B with half inputs accumulated in float, stored as half.
static bool run(Context &ctx) {
  std::vector<float> a = roundHalf(ctx.uniform(size_t(TEST_M) * TEST_K)),
                     b = roundHalf(ctx.uniform(size_t(TEST_K) * TEST_N));
  Buffer A(size_t(TEST_M) * TEST_K, 2), B(size_t(TEST_K) * TEST_N, 2),
      C(size_t(TEST_M) * TEST_N, 2);
  A.upload(toHalf(a).data());
  B.upload(toHalf(b).data());
  C.poison();
  CHECK(LAUNCH(matmul, A.ptr, B.ptr, C.ptr));
  SYNC();
  std::vector<uint16_t> c(size_t(TEST_M) * TEST_N);
  C.download(c.data());
  std::vector<double> got(c.size()), want(c.size());
  for (int i = 0; i < TEST_M; ++i)
    for (int j = 0; j < TEST_N; ++j) {
      double acc = 0;
      for (int k = 0; k < TEST_K; ++k)
        acc += double(a[size_t(i) * TEST_K + k]) * b[size_t(k) * TEST_N + j];
      got[size_t(i) * TEST_N + j] = halfToFloat(c[size_t(i) * TEST_N + j]);
      want[size_t(i) * TEST_N + j] = acc;
    }
  return compare(TEST_NAME, got, want, 2e-2, 4e-3, ctx.seed);
}

#elif defined(TEST_FLASH)
// Output = softmax(Q K^T / sqrt(dim)) V per batch and head for TEST_SEQ
// queries and TEST_SEQ_KV keys (TEST_SEQ unless given), causal when CAUSAL
// is 1 (query i sees keys up to i + TEST_SEQ_KV - TEST_SEQ), in the bshd
// layout (BHSD 0) or bhsd (BHSD 1), in bfloat16 with BF16 1, and with the
// sequence length an argument of the launch function with DYNAMIC 1.
#ifndef TEST_SEQ_KV
#define TEST_SEQ_KV TEST_SEQ
#endif
#ifndef BF16
#define BF16 0
#endif
#ifndef DYNAMIC
#define DYNAMIC 0
#endif
static bool run(Context &ctx) {
  const int64_t b = TEST_BATCH, h = TEST_HEADS, sq = TEST_SEQ,
                skv = TEST_SEQ_KV, d = TEST_DIM;
  const size_t qCount = size_t(b) * h * sq * d,
               kvCount = size_t(b) * h * skv * d;
  auto round = [](std::vector<float> values) {
    for (float &v : values)
      v = BF16 ? bf16ToFloat(floatToBf16(v)) : halfToFloat(floatToHalf(v));
    return values;
  };
  std::vector<float> q = round(ctx.uniform(qCount)),
                     k = round(ctx.uniform(kvCount)),
                     v = round(ctx.uniform(kvCount));
  Buffer Q(qCount, 2), K(kvCount, 2), V(kvCount, 2), O(qCount, 2);
  Q.upload(toSixteenBits(q, BF16).data());
  K.upload(toSixteenBits(k, BF16).data());
  V.upload(toSixteenBits(v, BF16).data());
  O.poison();
#if DYNAMIC
  CHECK(LAUNCH(flashattn, Q.ptr, K.ptr, V.ptr, O.ptr, sq));
#else
  CHECK(LAUNCH(flashattn, Q.ptr, K.ptr, V.ptr, O.ptr));
#endif
  SYNC();
  std::vector<uint16_t> o(qCount);
  O.download(o.data());
  auto at = [&](int64_t s, int64_t bi, int64_t si, int64_t hi, int64_t di) {
    return BHSD ? ((size_t(bi) * h + hi) * s + si) * d + di
                : ((size_t(bi) * s + si) * h + hi) * d + di;
  };
  std::vector<double> got(qCount), want(qCount), scores(skv);
  double scale = 1.0 / std::sqrt(double(d));
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t hi = 0; hi < h; ++hi)
      for (int64_t i = 0; i < sq; ++i) {
        int64_t keys = CAUSAL ? std::min(skv, i + 1 + skv - sq) : skv;
        double best = -INFINITY, sum = 0;
        for (int64_t j = 0; j < keys; ++j) {
          double dot = 0;
          for (int64_t di = 0; di < d; ++di)
            dot += double(q[at(sq, bi, i, hi, di)]) * k[at(skv, bi, j, hi, di)];
          scores[j] = dot * scale;
          best = std::max(best, scores[j]);
        }
        for (int64_t j = 0; j < keys; ++j)
          sum += scores[j] = std::exp(scores[j] - best);
        for (int64_t di = 0; di < d; ++di) {
          double acc = 0;
          for (int64_t j = 0; j < keys; ++j)
            acc += scores[j] * v[at(skv, bi, j, hi, di)];
          size_t index = at(sq, bi, i, hi, di);
          want[index] = acc / sum;
          got[index] = BF16 ? bf16ToFloat(o[index]) : halfToFloat(o[index]);
        }
      }
  // The probabilities feed P V in the input type: bfloat16 has 3 fewer
  // mantissa bits than half.
  return BF16 ? compare(TEST_NAME, got, want, 1e-2, 2e-2, ctx.seed)
              : compare(TEST_NAME, got, want, 2e-3, 1e-2, ctx.seed);
}

#elif defined(TEST_CONTROL)
// Y[g] = X[g] * 8 where X[g] > 0, else -X[g]; S = sum(X) by atomics. Each
// thread's local table is complete. The swizzled kernel must write every
// block's id once.
static bool run(Context &ctx) {
  bool ok = true;
  for (int64_t n : {1, 128, 1000, 4097}) {
    std::vector<float> x = ctx.uniform(size_t(n));
    Buffer X(n, 4), Y(n, 4), S(1, 4);
    X.upload(x.data());
    Y.poison();
    const float zero = 0;
    S.upload(&zero);
    CHECK(LAUNCH(control, X.ptr, Y.ptr, S.ptr, n));
    SYNC();
    std::vector<float> y(n), s(1);
    Y.download(y.data());
    S.download(s.data());
    std::vector<double> want(n);
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      want[i] = x[i] > 0 ? x[i] * 8.0 : -double(x[i]);
      sum += x[i];
    }
    ok &= compare(std::string(TEST_NAME) + " n=" + std::to_string(n), widen(y),
                  want, 1e-6, 1e-6, ctx.seed);
    ok &= compare(std::string(TEST_NAME) + " atomic sum n=" + std::to_string(n),
                  {double(s[0])}, {sum}, 1e-3, 1e-4, ctx.seed);
  }
  for (int64_t n : {5, 1000}) {
    std::vector<float> c = ctx.uniform(8), x = ctx.uniform(size_t(n));
    Buffer C(8, 4), X(n, 4), Y(n, 4);
    C.upload(c.data());
    X.upload(x.data());
    Y.poison();
    CHECK(LAUNCH(local_table, C.ptr, X.ptr, Y.ptr, n));
    SYNC();
    std::vector<float> y(n);
    Y.download(y.data());
    std::vector<double> want(n);
    for (int64_t g = 0; g < n; ++g)
      want[g] = double(x[g]) * (2.0 * c[g % 8] + double(g % 8));
    ok &=
        compare(std::string(TEST_NAME) + " local table n=" + std::to_string(n),
                widen(y), want, 1e-6, 1e-6, ctx.seed);
  }
  Buffer B(12 * 20, 4);
  B.poison();
  CHECK(LAUNCH(swizzled, B.ptr));
  SYNC();
  std::vector<int32_t> ids(12 * 20);
  B.download(ids.data());
  std::vector<double> got(ids.size()), want(ids.size());
  for (int r = 0; r < 12; ++r)
    for (int c = 0; c < 20; ++c) {
      got[r * 20 + c] = ids[r * 20 + c];
      want[r * 20 + c] = r * 100 + c;
    }
  ok &= compare(std::string(TEST_NAME) + " swizzle covers the grid", got, want,
                0, 0, ctx.seed);
  // A gather whose indices run past A on both sides: the guarded reads give
  // zeros there.
  for (auto [m, n] : {std::pair<int64_t, int64_t>{100, 1000}, {1, 130}}) {
    std::vector<float> a = ctx.uniform(size_t(m));
    std::vector<int32_t> idx(n);
    for (int64_t g = 0; g < n; ++g)
      idx[g] = int32_t((g * 7919) % (m + 16)) - 8;
    Buffer A(m, 4), I(n, 4), Bg(n, 4);
    A.upload(a.data());
    I.upload(idx.data());
    Bg.poison();
    CHECK(LAUNCH(gather, A.ptr, I.ptr, Bg.ptr, m, n));
    SYNC();
    std::vector<float> y(n);
    Bg.download(y.data());
    std::vector<double> want(n);
    for (int64_t g = 0; g < n; ++g)
      want[g] = idx[g] >= 0 && idx[g] < m ? double(a[idx[g]]) : 0.0;
    ok &= compare(std::string(TEST_NAME) + " guarded gather m=" +
                      std::to_string(m) + " n=" + std::to_string(n),
                  widen(y), want, 0, 0, ctx.seed);
  }
  for (int64_t m : {1, 100}) {
    std::vector<float> a = ctx.uniform(size_t(m * 64));
    std::vector<int32_t> idx(128);
    for (int64_t r = 0; r < 128; ++r)
      idx[r] = int32_t((r * 37) % (m + 6)) - 3;
    Buffer A(m * 64, 4), I(128, 4), Bg(128 * 64, 4);
    A.upload(a.data());
    I.upload(idx.data());
    Bg.poison();
    CHECK(LAUNCH(gather_rows, A.ptr, I.ptr, Bg.ptr, m));
    SYNC();
    std::vector<float> y(128 * 64);
    Bg.download(y.data());
    std::vector<double> want(128 * 64);
    for (int64_t r = 0; r < 128; ++r)
      for (int64_t c = 0; c < 64; ++c)
        want[r * 64 + c] =
            idx[r] >= 0 && idx[r] < m ? double(a[idx[r] * 64 + c]) : 0.0;
    ok &= compare(std::string(TEST_NAME) +
                      " guarded row gather m=" + std::to_string(m),
                  widen(y), want, 0, 0, ctx.seed);
  }
  // bf16 comparisons, of two values and of their difference with zero (a
  // third of the pairs equal): under --fast-math, once a PTX modifier
  // ptxas rejected.
  for (int64_t n : {1, 1000}) {
    std::vector<uint16_t> a = toSixteenBits(ctx.uniform(size_t(n)), true);
    std::vector<uint16_t> b = toSixteenBits(ctx.uniform(size_t(n)), true);
    for (int64_t g = 0; g < n; g += 3)
      b[g] = a[g];
    Buffer A(n, 2), Bb(n, 2), Y(n, 4);
    A.upload(a.data());
    Bb.upload(b.data());
    Y.poison();
    CHECK(LAUNCH(select_bf16, A.ptr, Bb.ptr, Y.ptr, n));
    SYNC();
    std::vector<float> y(n);
    Y.download(y.data());
    std::vector<double> want(n);
    for (int64_t g = 0; g < n; ++g) {
      double x = bf16ToFloat(a[g]), z = bf16ToFloat(b[g]);
      want[g] = x == z ? -1.0 : x > z ? x : 2 * z;
    }
    ok &=
        compare(std::string(TEST_NAME) + " bf16 select n=" + std::to_string(n),
                widen(y), want, 0, 0, ctx.seed);
  }
  return ok;
}

#elif defined(TEST_FP8)
// Conversions to and from FP8_E5M2 ? e5m2 : e4m3 (OCP's formats, or with
// FP8_FNUZ the FNUZ ones of AMD's gfx942): every byte widened to f32 and
// f16, exactly; and f32 values narrowed (round to nearest even,
// saturating): each 8-bit value, the midpoints between neighbours and the
// floats next to them, specials and random values.
struct Fp8Format {
  int mantissaBits, bias, maxFinite;
  bool ieeeSpecials;
  // No infinities, no negative zero: 0x80 is NaN.
  bool fnuz;
};

static const Fp8Format format =
    FP8_FNUZ   ? (FP8_E5M2 ? Fp8Format{2, 16, 0x7F, false, true}
                           : Fp8Format{3, 8, 0x7F, false, true})
    : FP8_E5M2 ? Fp8Format{2, 15, 0x7B, true, false}
               : Fp8Format{3, 7, 0x7E, false, false};

static bool isNaNByte(uint8_t byte) {
  int magnitude = byte & 0x7F;
  if (format.fnuz)
    return byte == 0x80;
  return format.ieeeSpecials ? magnitude > 0x7C : magnitude == 0x7F;
}

/// The value of a non-NaN byte.
static double decode(uint8_t byte) {
  int magnitude = byte & 0x7F, m = format.mantissaBits;
  int exponent = magnitude >> m, mantissa = magnitude & ((1 << m) - 1);
  double value;
  if (format.ieeeSpecials && magnitude == 0x7C)
    value = INFINITY;
  else if (exponent == 0)
    value = std::ldexp(double(mantissa), 1 - format.bias - m);
  else
    value = std::ldexp(1.0 + std::ldexp(double(mantissa), -m),
                       exponent - format.bias);
  return byte & 0x80 ? -value : value;
}

/// The nearest byte to a non-NaN `x`, ties to the even code, beyond the
/// largest finite value saturated.
static uint8_t encode(double x) {
  uint8_t sign = std::signbit(x) ? 0x80 : 0;
  double a = std::fabs(x);
  if (a >= decode(uint8_t(format.maxFinite)))
    return uint8_t(sign | format.maxFinite);
  int best = 0;
  for (int code = 1; code <= format.maxFinite; ++code) {
    double d = std::fabs(decode(uint8_t(code)) - a),
           e = std::fabs(decode(uint8_t(best)) - a);
    if (d < e || (d == e && code % 2 == 0))
      best = code;
  }
  // FNUZ has no negative zero.
  if (format.fnuz && best == 0)
    return 0;
  return uint8_t(sign | best);
}

static bool run(Context &ctx) {
  bool ok = true;
  // Widening: every byte, over a tail block.
  const int64_t wideCount = 256 * 3 + 100;
  std::vector<uint8_t> bytes(wideCount);
  for (int64_t i = 0; i < wideCount; ++i)
    bytes[i] = uint8_t(i * 7 + 3);
  Buffer X(wideCount, 1), Y(wideCount, 4), H(wideCount, 2);
  X.upload(bytes.data());
  Y.poison();
  H.poison();
  CHECK(LAUNCH(widen, X.ptr, Y.ptr, H.ptr, wideCount));
  SYNC();
  std::vector<float> y(wideCount);
  std::vector<uint16_t> h(wideCount);
  Y.download(y.data());
  H.download(h.data());
  size_t bad = 0;
  for (int64_t i = 0; i < wideCount; ++i) {
    double half = halfToFloat(h[i]);
    bool right;
    if (isNaNByte(bytes[i])) {
      right = std::isnan(y[i]) && std::isnan(half);
    } else {
      double want = decode(bytes[i]);
      right = y[i] == want && half == want &&
              std::signbit(y[i]) == std::signbit(want) &&
              std::signbit(half) == std::signbit(want);
    }
    if (!right && bad++ == 0)
      std::printf("  byte 0x%02x: got %g and %g, want %g\n", bytes[i], y[i],
                  half, decode(bytes[i]));
  }
  std::printf("%s %-48s (%lld elements)\n", bad ? "FAIL" : "PASS",
              (std::string(TEST_NAME) + " widen").c_str(),
              (long long)wideCount);
  ok &= bad == 0;

  // Narrowing.
  std::vector<float> x;
  for (int code = 0; code <= format.maxFinite; ++code) {
    for (double sign : {1.0, -1.0}) {
      float v = float(sign * decode(uint8_t(code)));
      x.push_back(v);
      if (code == format.maxFinite)
        continue;
      float mid =
          float(sign * (decode(uint8_t(code)) + decode(uint8_t(code + 1))) / 2);
      x.push_back(mid);
      x.push_back(std::nextafter(mid, 0.0f));
      x.push_back(std::nextafter(mid, sign * INFINITY));
    }
  }
  float largest = float(decode(uint8_t(format.maxFinite)));
  for (float v : {INFINITY, -INFINITY, NAN, largest * 1.01f, -largest * 1.5f,
                  1e30f, -1e30f, 1e-30f, -1e-30f, 1e-40f, 0.0f, -0.0f})
    x.push_back(v);
  for (float v : ctx.uniform(2000, -2 * largest, 2 * largest))
    x.push_back(v);
  for (float v : ctx.uniform(2000, -1, 1))
    x.push_back(v);
  const int64_t narrowCount = int64_t(x.size());
  Buffer Xf(narrowCount, 4), Z(narrowCount, 1);
  Xf.upload(x.data());
  Z.poison();
  CHECK(LAUNCH(narrow, Xf.ptr, Z.ptr, narrowCount));
  SYNC();
  std::vector<uint8_t> z(narrowCount);
  Z.download(z.data());
  bad = 0;
  for (int64_t i = 0; i < narrowCount; ++i) {
    bool right = std::isnan(x[i]) ? isNaNByte(z[i]) : z[i] == encode(x[i]);
    if (!right && bad++ == 0)
      std::printf("  %.9g: got 0x%02x, want 0x%02x\n", x[i], z[i],
                  std::isnan(x[i]) ? 0x7F : encode(x[i]));
  }
  std::printf("%s %-48s (%lld elements, seed %llu)\n", bad ? "FAIL" : "PASS",
              (std::string(TEST_NAME) + " narrow").c_str(),
              (long long)narrowCount, (unsigned long long)ctx.seed);
  return ok && bad == 0;
}

#elif defined(TEST_LAYOUT_TRANSPOSE)
// B = A^T, each block reading its fragment tile transposed (through shared
// memory, as layout inference converts it).
static bool run(Context &ctx) {
  const int m = TEST_M, n = TEST_N;
  std::vector<float> a = ctx.uniform(size_t(m) * n);
  Buffer A(size_t(m) * n, 4), B(size_t(m) * n, 4);
  A.upload(a.data());
  B.poison();
  CHECK(LAUNCH(transpose_fragment, A.ptr, B.ptr));
  SYNC();
  std::vector<float> b(size_t(m) * n);
  B.download(b.data());
  std::vector<double> want(size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      want[size_t(j) * m + i] = a[size_t(i) * n + j];
  return compare(TEST_NAME, widen(b), want, 0.0, 0.0, ctx.seed);
}

#elif defined(TEST_ONLINE_SOFTMAX)
// Y = softmax(X) along rows, from a running maximum and sum over column
// tiles; against float64 on the CPU.
static bool run(Context &ctx) {
  const int m = TEST_M, n = TEST_N;
  std::vector<float> x = ctx.uniform(size_t(m) * n, -8, 8);
  Buffer X(size_t(m) * n, 4), Y(size_t(m) * n, 4);
  X.upload(x.data());
  Y.poison();
  CHECK(LAUNCH(online_softmax, X.ptr, Y.ptr));
  SYNC();
  std::vector<float> y(size_t(m) * n);
  Y.download(y.data());
  std::vector<double> want(size_t(m) * n);
  for (int r = 0; r < m; ++r) {
    const float *row = &x[size_t(r) * n];
    double max = *std::max_element(row, row + n), sum = 0;
    for (int c = 0; c < n; ++c)
      sum += std::exp(double(row[c]) - max);
    for (int c = 0; c < n; ++c)
      want[size_t(r) * n + c] = std::exp(double(row[c]) - max) / sum;
  }
  return compare(TEST_NAME, widen(y), want, 1e-6, 1e-4, ctx.seed);
}

#elif defined(TEST_INT4_GEMV)
// y = W x, W of int4 values packed two to a byte (the even column in the
// low nibble), sign-extended; against float64 on the CPU.
static bool run(Context &ctx) {
  const int n = TEST_N, k = TEST_K;
  std::vector<int8_t> w(size_t(n) * k / 2);
  std::uniform_int_distribution<int> byte(-128, 127);
  for (int8_t &v : w)
    v = int8_t(byte(ctx.rng));
  std::vector<float> x = ctx.uniform(k);
  Buffer W(w.size(), 1), X(k, 4), Y(n, 4);
  W.upload(w.data());
  X.upload(x.data());
  Y.poison();
  CHECK(LAUNCH(int4_gemv, W.ptr, X.ptr, Y.ptr));
  SYNC();
  std::vector<float> y(n);
  Y.download(y.data());
  std::vector<double> want(n, 0.0);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < k; ++c) {
      int8_t packed = w[size_t(r) * (k / 2) + c / 2];
      int value = c % 2 == 0 ? int8_t(packed << 4) >> 4 : packed >> 4;
      want[r] += value * double(x[c]);
    }
  return compare(TEST_NAME, widen(y), want, 1e-4, 1e-5, ctx.seed);
}

#elif defined(TEST_TOPK)
// The TOPK_K largest values of each row of P, in descending order, and
// their columns.
static bool run(Context &ctx) {
  const int m = TEST_M, e = TOPK_E, k = TOPK_K;
  std::vector<float> p = ctx.uniform(size_t(m) * e);
  Buffer P(p.size(), 4), V(size_t(m) * k, 4), I(size_t(m) * k, 4);
  P.upload(p.data());
  V.poison();
  I.poison();
  CHECK(LAUNCH(topk_rows, P.ptr, V.ptr, I.ptr));
  SYNC();
  std::vector<float> v(size_t(m) * k);
  std::vector<int32_t> idx(size_t(m) * k);
  V.download(v.data());
  I.download(idx.data());
  std::vector<double> got, want;
  for (int r = 0; r < m; ++r) {
    std::vector<int> order(e);
    for (int c = 0; c < e; ++c)
      order[c] = c;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return p[size_t(r) * e + a] > p[size_t(r) * e + b];
    });
    for (int j = 0; j < k; ++j) {
      got.push_back(v[size_t(r) * k + j]);
      want.push_back(p[size_t(r) * e + order[j]]);
      got.push_back(idx[size_t(r) * k + j]);
      want.push_back(order[j]);
    }
  }
  return compare(TEST_NAME, got, want, 0.0, 0.0, ctx.seed);
}

#elif defined(TEST_BLOCK_ABSMAX)
// S = max |X| over each 64x64 block (the maximum of the rows' maxima) and
// Y = X / S of its block.
static bool run(Context &ctx) {
  const int m = TEST_M, n = TEST_N, block = 64;
  const int blocksM = (m + block - 1) / block,
            blocksN = (n + block - 1) / block;
  std::vector<float> x = ctx.uniform(size_t(m) * n);
  Buffer X(x.size(), 4), Y(x.size(), 4), S(size_t(blocksM) * blocksN, 4);
  X.upload(x.data());
  Y.poison();
  S.poison();
  CHECK(LAUNCH(block_absmax, X.ptr, Y.ptr, S.ptr));
  SYNC();
  std::vector<float> y(x.size()), s(size_t(blocksM) * blocksN);
  Y.download(y.data());
  S.download(s.data());
  std::vector<double> amax(s.size(), 0.0);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c) {
      double &a = amax[size_t(r / block) * blocksN + c / block];
      a = std::max(a, std::fabs(double(x[size_t(r) * n + c])));
    }
  std::vector<double> got = widen(y), want(x.size());
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c)
      want[size_t(r) * n + c] =
          x[size_t(r) * n + c] / amax[size_t(r / block) * blocksN + c / block];
  got.insert(got.end(), s.begin(), s.end());
  want.insert(want.end(), amax.begin(), amax.end());
  return compare(TEST_NAME, got, want, 1e-6, 1e-6, ctx.seed);
}

#elif defined(TEST_MLA_DECODE)
// MLA decode: O = softmax((Q KV^T + Q_pe K_pe^T) / sqrt(dim + pe_dim)) KV
// per batch and head, the latent rows serving as the values; against
// float64 on the CPU.
static bool run(Context &ctx) {
  const int batch = MLA_BATCH, heads = MLA_HEADS, kv = MLA_SEQLEN_KV,
            dim = MLA_DIM, pe = MLA_PE_DIM;
  auto input = [&](size_t count) { return roundHalf(ctx.uniform(count)); };
  std::vector<float> q = input(size_t(batch) * heads * dim),
                     qpe = input(size_t(batch) * heads * pe),
                     latent = input(size_t(batch) * kv * dim),
                     kpe = input(size_t(batch) * kv * pe);
  Buffer Q(q.size(), 2), QPE(qpe.size(), 2), KV(latent.size(), 2),
      KPE(kpe.size(), 2), O(q.size(), 2);
  Q.upload(toHalf(q).data());
  QPE.upload(toHalf(qpe).data());
  KV.upload(toHalf(latent).data());
  KPE.upload(toHalf(kpe).data());
  O.poison();
  CHECK(LAUNCH(mla_decode, Q.ptr, QPE.ptr, KV.ptr, KPE.ptr, O.ptr));
  SYNC();
  std::vector<uint16_t> o(q.size());
  O.download(o.data());
  std::vector<double> got(q.size()), want(q.size(), 0.0);
  for (size_t i = 0; i < o.size(); ++i)
    got[i] = halfToFloat(o[i]);
  const double scale = 1.0 / std::sqrt(double(dim + pe));
  std::vector<double> score(kv);
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h) {
      const float *qRow = &q[(size_t(b) * heads + h) * dim];
      const float *qpeRow = &qpe[(size_t(b) * heads + h) * pe];
      double max = -INFINITY, sum = 0;
      for (int j = 0; j < kv; ++j) {
        const float *kRow = &latent[(size_t(b) * kv + j) * dim];
        const float *kpeRow = &kpe[(size_t(b) * kv + j) * pe];
        double dot = 0;
        for (int d = 0; d < dim; ++d)
          dot += double(qRow[d]) * kRow[d];
        for (int d = 0; d < pe; ++d)
          dot += double(qpeRow[d]) * kpeRow[d];
        score[j] = dot * scale;
        max = std::max(max, score[j]);
      }
      for (int j = 0; j < kv; ++j)
        sum += (score[j] = std::exp(score[j] - max));
      double *out = &want[(size_t(b) * heads + h) * dim];
      for (int j = 0; j < kv; ++j)
        for (int d = 0; d < dim; ++d)
          out[d] += score[j] / sum * latent[(size_t(b) * kv + j) * dim + d];
    }
  // Half-precision probabilities and output.
  return compare(TEST_NAME, got, want, 2e-3, 1e-2, ctx.seed);
}

#elif defined(TEST_SPLITKV_DECODE)
// GQA decode split over the KV cache: O = softmax(Q K^T / sqrt(dim)) V per
// batch and head, head h reading KV head h / groups, from one launch of
// two blocks (the partial results, then their combination); against
// float64 on the CPU. The partial results must be complete too.
static bool run(Context &ctx) {
  const int batch = SPLITKV_BATCH, heads = SPLITKV_HEADS,
            groups = SPLITKV_GROUPS, kv = SPLITKV_SEQLEN_KV, dim = SPLITKV_DIM,
            splits = SPLITKV_NUM_SPLIT;
  const int kvHeads = heads / groups;
  auto input = [&](size_t count) { return roundHalf(ctx.uniform(count)); };
  std::vector<float> q = input(size_t(batch) * heads * dim),
                     k = input(size_t(batch) * kv * kvHeads * dim),
                     v = input(size_t(batch) * kv * kvHeads * dim);
  Buffer Q(q.size(), 2), K(k.size(), 2), V(v.size(), 2),
      OPart(size_t(batch) * heads * splits * dim, 4),
      LsePart(size_t(batch) * heads * splits, 4), O(q.size(), 2);
  Q.upload(toHalf(q).data());
  K.upload(toHalf(k).data());
  V.upload(toHalf(v).data());
  OPart.poison();
  LsePart.poison();
  O.poison();
  CHECK(LAUNCH(gqa_decode_splitkv, Q.ptr, K.ptr, V.ptr, OPart.ptr, LsePart.ptr,
               O.ptr));
  SYNC();
  std::vector<uint16_t> o(q.size());
  O.download(o.data());
  std::vector<float> lse(size_t(batch) * heads * splits);
  LsePart.download(lse.data());
  std::vector<double> got, want;
  const double scale = 1.0 / std::sqrt(double(dim));
  const int splitLen = kv / splits;
  std::vector<double> score(kv);
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h) {
      const float *qRow = &q[(size_t(b) * heads + h) * dim];
      auto key = [&](const std::vector<float> &t, int j) {
        return &t[((size_t(b) * kv + j) * kvHeads + h / groups) * dim];
      };
      for (int j = 0; j < kv; ++j) {
        double dot = 0;
        for (int d = 0; d < dim; ++d)
          dot += double(qRow[d]) * key(k, j)[d];
        score[j] = dot * scale;
      }
      // Each split's log2-sum-exp2 of its scores, in the kernel's base 2.
      for (int sp = 0; sp < splits; ++sp) {
        double max = -INFINITY, sum = 0;
        for (int j = sp * splitLen; j < (sp + 1) * splitLen; ++j)
          max = std::max(max, score[j]);
        for (int j = sp * splitLen; j < (sp + 1) * splitLen; ++j)
          sum += std::exp(score[j] - max);
        got.push_back(lse[(size_t(b) * heads + h) * splits + sp]);
        want.push_back((max + std::log(sum)) / std::log(2.0));
      }
      double max = *std::max_element(score.begin(), score.end()), sum = 0;
      std::vector<double> p(kv);
      for (int j = 0; j < kv; ++j)
        sum += (p[j] = std::exp(score[j] - max));
      for (int d = 0; d < dim; ++d) {
        double out = 0;
        for (int j = 0; j < kv; ++j)
          out += p[j] / sum * key(v, j)[d];
        got.push_back(halfToFloat(o[(size_t(b) * heads + h) * dim + d]));
        want.push_back(out);
      }
    }
  // Half-precision probabilities and output.
  return compare(TEST_NAME, got, want, 2e-3, 1e-2, ctx.seed);
}

#elif defined(TEST_WORKSPACE)
// Row sums and maxima through T.alloc_global buffers shared by two
// T.Kernel blocks, in a workspace the launch allocates (none given), then
// in one the caller gives, poisoned; a misaligned one is refused.
static bool run(Context &ctx) {
  const int m = TEST_M, n = 300;
  std::vector<float> x = ctx.uniform(size_t(m) * n);
  Buffer X(x.size(), 4), Y(m, 4), Z(m, 4);
  X.upload(x.data());
  std::vector<double> want;
  for (int r = 0; r < m; ++r) {
    double sum = 0;
    for (int c = 0; c < n; ++c)
      sum += x[size_t(r) * n + c];
    want.push_back(sum);
  }
  for (int r = 0; r < m; ++r)
    want.push_back(*std::max_element(&x[size_t(r) * n], &x[size_t(r) * n] + n));
  auto results = [&] {
    std::vector<float> y(m), z(m);
    Y.download(y.data());
    Z.download(z.data());
    std::vector<double> got = widen(y);
    got.insert(got.end(), z.begin(), z.end());
    return got;
  };
  Y.poison();
  Z.poison();
  CHECK(LAUNCH(row_stats, X.ptr, Y.ptr, Z.ptr, m, 0));
  SYNC();
  bool ok = compare((std::string(TEST_NAME) + " allocated").c_str(), results(),
                    want, 1e-5, 1e-5, ctx.seed);

  // 3 * m floats of sums and of maxima, each part rounded up to 256 bytes.
  const size_t part = (size_t(m) * 3 * 4 + 255) / 256 * 256;
  const size_t bytes = row_stats_workspace_bytes(m);
  if (bytes != 2 * part) {
    std::printf("FAIL %s: row_stats_workspace_bytes(%d) is %zu, want %zu\n",
                TEST_NAME, m, bytes, 2 * part);
    ok = false;
  }
  Buffer W(bytes + 256, 1);
  W.poison();
  Y.poison();
  Z.poison();
  CHECK(LAUNCH(row_stats, X.ptr, Y.ptr, Z.ptr, m, W.ptr));
  SYNC();
  ok = compare((std::string(TEST_NAME) + " given").c_str(), results(), want,
               1e-5, 1e-5, ctx.seed) &&
       ok;
  if (LAUNCH(row_stats, X.ptr, Y.ptr, Z.ptr, m, W.ptr + 16) != INVALID_VALUE) {
    std::printf("FAIL %s: a workspace 16 bytes off 256 was not refused\n",
                TEST_NAME);
    ok = false;
  }
  return ok;
}

#elif defined(TEST_ATOMIC_EXTREMA)
// Row maxima and minima through T.atomic_max / T.atomic_min, of floats,
// signed integers and unsigned ones above 2^31 (which a signed comparison
// would order below the others).
static bool run(Context &ctx) {
  const int m = TEST_M, n = TEST_N;
  std::vector<float> x = ctx.uniform(size_t(m) * n, -100, 100);
  std::vector<int32_t> ints(size_t(m) * n);
  std::vector<uint32_t> uints(size_t(m) * n);
  std::uniform_int_distribution<uint32_t> bits;
  for (size_t i = 0; i < ints.size(); ++i) {
    uints[i] = bits(ctx.rng);
    ints[i] = int32_t(bits(ctx.rng));
  }
  Buffer X(x.size(), 4), I(ints.size(), 4), U(uints.size(), 4), R(2 * m, 4),
      S(2 * m, 4), V(2 * m, 4);
  X.upload(x.data());
  I.upload(ints.data());
  U.upload(uints.data());
  // The identities of maximum and minimum, which every row replaces.
  std::vector<float> r0;
  std::vector<int32_t> s0;
  std::vector<uint32_t> v0;
  for (int row = 0; row < m; ++row) {
    r0.insert(r0.end(), {-INFINITY, INFINITY});
    s0.insert(s0.end(), {INT32_MIN, INT32_MAX});
    v0.insert(v0.end(), {0u, UINT32_MAX});
  }
  R.upload(r0.data());
  S.upload(s0.data());
  V.upload(v0.data());
  CHECK(LAUNCH(atomic_extrema, X.ptr, I.ptr, U.ptr, R.ptr, S.ptr, V.ptr));
  SYNC();
  std::vector<float> r(2 * m);
  std::vector<int32_t> sv(2 * m);
  std::vector<uint32_t> vv(2 * m);
  R.download(r.data());
  S.download(sv.data());
  V.download(vv.data());
  std::vector<double> got, want;
  for (int row = 0; row < m; ++row) {
    size_t at = size_t(row) * n;
    got.insert(got.end(), {double(r[2 * row]), double(r[2 * row + 1]),
                           double(sv[2 * row]), double(sv[2 * row + 1]),
                           double(vv[2 * row]), double(vv[2 * row + 1])});
    want.insert(want.end(),
                {double(*std::max_element(&x[at], &x[at] + n)),
                 double(*std::min_element(&x[at], &x[at] + n)),
                 double(*std::max_element(&ints[at], &ints[at] + n)),
                 double(*std::min_element(&ints[at], &ints[at] + n)),
                 double(*std::max_element(&uints[at], &uints[at] + n)),
                 double(*std::min_element(&uints[at], &uints[at] + n))});
  }
  return compare(TEST_NAME, got, want, 0.0, 0.0, ctx.seed);
}

#elif defined(TEST_WARP_ROW_SUMS)
// Row sums by one warp a row (XOR shuffles), and the largest of each
// block's four, a block's last rows past the end counting as 0.
static bool run(Context &ctx) {
  const int m = TEST_M, n = TEST_N, blocks = (m + 3) / 4;
  std::vector<float> x = ctx.uniform(size_t(m) * n);
  Buffer X(x.size(), 4), RowSum(m, 4), BlockMax(blocks, 4);
  X.upload(x.data());
  RowSum.poison();
  BlockMax.poison();
  CHECK(LAUNCH(warp_row_sums, X.ptr, RowSum.ptr, BlockMax.ptr));
  SYNC();
  std::vector<float> sums(m), maxima(blocks);
  RowSum.download(sums.data());
  BlockMax.download(maxima.data());
  std::vector<double> want(m), wantMax(blocks, -INFINITY);
  for (int r = 0; r < m; ++r) {
    for (int c = 0; c < n; ++c)
      want[r] += x[size_t(r) * n + c];
    wantMax[r / 4] = std::max(wantMax[r / 4], want[r]);
  }
  if (m % 4)
    wantMax.back() = std::max(wantMax.back(), 0.0);
  std::vector<double> got = widen(sums);
  got.insert(got.end(), maxima.begin(), maxima.end());
  want.insert(want.end(), wantMax.begin(), wantMax.end());
  return compare(TEST_NAME, got, want, 1e-4, 1e-5, ctx.seed);
}

#elif defined(TEST_DEQUANT_INT4)
// Out[n, k] = (nibble k of row n - 8) * Scale[n], low nibble first.
static bool run(Context &ctx) {
  const int n = TEST_N, k = TEST_K;
  std::vector<uint8_t> packed(size_t(n) * k / 2);
  std::uniform_int_distribution<int> byte(0, 255);
  for (uint8_t &b : packed)
    b = uint8_t(byte(ctx.rng));
  std::vector<float> scale = roundHalf(ctx.uniform(n, 0.5f, 2.0f));
  Buffer B(packed.size(), 1), Scale(n, 2), Out(size_t(n) * k, 2);
  B.upload(packed.data());
  Scale.upload(toHalf(scale).data());
  Out.poison();
  CHECK(LAUNCH(dequant_int4, B.ptr, Scale.ptr, Out.ptr));
  SYNC();
  std::vector<uint16_t> out(size_t(n) * k);
  Out.download(out.data());
  std::vector<double> got(out.size()), want(out.size());
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < k; ++c) {
      size_t at = size_t(r) * k + c;
      int nibble = (packed[at / 2] >> (4 * (c % 2))) & 0xf;
      got[at] = halfToFloat(out[at]);
      want[at] = double(halfToFloat(floatToHalf(float(nibble - 8)))) * scale[r];
    }
  // One rounding of the product to half.
  return compare(TEST_NAME, got, want, 0, 1.0 / 1024, ctx.seed);
}

#elif defined(TEST_SHUFFLE_MODES)
// Within each group of 32 elements: the next lane's value (the last lane
// its own), the value two lanes back (the first two their own), lane 5's,
// and the 64-bit value of lane ^ 1, compared half by half.
static bool run(Context &ctx) {
  const int m = TEST_M;
  std::vector<float> x = roundHalf(ctx.uniform(m));
  std::vector<uint64_t> wide(m);
  std::uniform_int_distribution<uint64_t> bits;
  for (uint64_t &w : wide)
    w = bits(ctx.rng);
  Buffer X(m, 2), Wide(m, 8), Down(m, 2), Up(m, 2), Broadcast(m, 2),
      Pairs(m, 8);
  X.upload(toHalf(x).data());
  Wide.upload(wide.data());
  for (Buffer *out : {&Down, &Up, &Broadcast, &Pairs})
    out->poison();
  CHECK(LAUNCH(shuffle_modes, X.ptr, Wide.ptr, Down.ptr, Up.ptr, Broadcast.ptr,
               Pairs.ptr));
  SYNC();
  std::vector<uint16_t> down(m), up(m), broadcast(m);
  std::vector<uint64_t> pairs(m);
  Down.download(down.data());
  Up.download(up.data());
  Broadcast.download(broadcast.data());
  Pairs.download(pairs.data());
  // Lanes past the end hold 0.
  auto value = [&](int i) { return i < m ? double(x[i]) : 0.0; };
  auto word = [&](int i) { return i < m ? wide[i] : uint64_t(0); };
  std::vector<double> got, want;
  for (int i = 0; i < m; ++i) {
    int lane = i % 32, base = i - lane;
    got.insert(got.end(),
               {double(halfToFloat(down[i])), double(halfToFloat(up[i])),
                double(halfToFloat(broadcast[i])), double(pairs[i] >> 32),
                double(pairs[i] & 0xffffffffu)});
    uint64_t pair = word(base + (lane ^ 1));
    want.insert(want.end(), {value(lane == 31 ? i : i + 1),
                             value(lane < 2 ? i : i - 2), value(base + 5),
                             double(pair >> 32), double(pair & 0xffffffffu)});
  }
  return compare(TEST_NAME, got, want, 0, 0, ctx.seed);
}

#elif defined(TEST_PARTIAL_BARRIERS)
// Counts[r, t]: the values of row r whose residue modulo R is at most
// R - 1 - t, summed among the first R threads on a named barrier;
// Pairs[r, t] = v(R + t ^ 1) + 2 v(R + t) with v(u) = 3 X[r, u % N] + u,
// exchanged within warps past a warp barrier.
static bool run(Context &ctx) {
  const int m = TEST_M, n = TEST_N, r = RADIX, threads = BLOCK_THREADS;
  std::vector<int32_t> x(size_t(m) * n);
  std::uniform_int_distribution<int32_t> value(0, 100000);
  for (int32_t &v : x)
    v = value(ctx.rng);
  Buffer X(x.size(), 4), Counts(size_t(m) * r, 4),
      Pairs(size_t(m) * (threads - r), 4);
  X.upload(x.data());
  Counts.poison();
  Pairs.poison();
  CHECK(LAUNCH(partial_barriers, X.ptr, Counts.ptr, Pairs.ptr));
  SYNC();
  std::vector<int32_t> counts(size_t(m) * r), pairs(size_t(m) * (threads - r));
  Counts.download(counts.data());
  Pairs.download(pairs.data());
  std::vector<double> got, want;
  for (int row = 0; row < m; ++row) {
    std::vector<int64_t> prefix(r, 0);
    for (int i = 0; i < n; ++i)
      ++prefix[x[size_t(row) * n + i] % r];
    for (int b = 1; b < r; ++b)
      prefix[b] += prefix[b - 1];
    for (int t = 0; t < r; ++t) {
      got.push_back(counts[size_t(row) * r + t]);
      want.push_back(double(prefix[r - 1 - t]));
    }
    auto v = [&](int u) { return 3.0 * x[size_t(row) * n + u % n] + u; };
    for (int t = 0; t < threads - r; ++t) {
      got.push_back(pairs[size_t(row) * (threads - r) + t]);
      want.push_back(v((r + t) ^ 1) + 2 * v(r + t));
    }
  }
  return compare(TEST_NAME, got, want, 0, 0, ctx.seed);
}

#elif defined(TEST_LOOP_EXITS)
// Per row: the first column above 0.9 (N if none), the sum of the
// non-negative values before it, and the halvings that take
// int(1000 X[r, 0]) to 1 or below.
static bool run(Context &ctx) {
  const int m = TEST_M, n = TEST_N;
  std::vector<float> x = ctx.uniform(size_t(m) * n);
  Buffer X(x.size(), 4), First(m, 4), Sum(m, 4), Steps(m, 4);
  X.upload(x.data());
  for (Buffer *out : {&First, &Sum, &Steps})
    out->poison();
  CHECK(LAUNCH(loop_exits, X.ptr, First.ptr, Sum.ptr, Steps.ptr));
  SYNC();
  std::vector<int32_t> first(m), steps(m);
  std::vector<float> sum(m);
  First.download(first.data());
  Sum.download(sum.data());
  Steps.download(steps.data());
  std::vector<double> got, want;
  for (int r = 0; r < m; ++r) {
    const float *row = &x[size_t(r) * n];
    int at = n;
    double acc = 0;
    for (int j = 0; j < n; ++j) {
      if (row[j] > 0.9f) {
        at = j;
        break;
      }
      if (row[j] >= 0)
        acc += row[j];
    }
    int v = int(row[0] * 1000), halvings = 0;
    while (halvings < 64 && v > 1) {
      v /= 2;
      ++halvings;
    }
    got.insert(got.end(), {double(first[r]), double(sum[r]), double(steps[r])});
    want.insert(want.end(), {double(at), acc, double(halvings)});
  }
  return compare(TEST_NAME, got, want, 1e-4, 1e-4, ctx.seed);
}

#elif defined(TEST_COMPACT)
// Out[0:Count] holds the indices of the values above 0.5, in the order the
// atomic adds that return the count before them gave: compared sorted.
static bool run(Context &ctx) {
  const int n = TEST_N;
  std::vector<float> x = ctx.uniform(n);
  Buffer X(n, 4), Out(n, 4), Count(1, 4);
  X.upload(x.data());
  Out.poison();
  int32_t zero = 0;
  Count.upload(&zero);
  CHECK(LAUNCH(compact, X.ptr, Out.ptr, Count.ptr));
  SYNC();
  int32_t count = 0;
  Count.download(&count);
  std::vector<int32_t> out(n);
  Out.download(out.data());
  std::vector<double> got{double(count)}, want;
  std::vector<int32_t> kept;
  for (int i = 0; i < n; ++i)
    if (x[i] > 0.5f)
      kept.push_back(i);
  want.push_back(double(kept.size()));
  if (count >= 0 && count <= n) {
    std::sort(out.begin(), out.begin() + count);
    got.insert(got.end(), out.begin(), out.begin() + count);
  }
  want.insert(want.end(), kept.begin(), kept.end());
  if (got.size() != want.size()) {
    std::printf("FAIL %-45s kept %d values, want %zu (seed %u)\n", TEST_NAME,
                count, kept.size(), ctx.seed);
    return false;
  }
  return compare(TEST_NAME, got, want, 0, 0, ctx.seed);
}

#elif defined(TEST_CONV2D)
// out[n, oh, ow, f] = the sum over (kh, kw, c) of
// img[n, oh * S - P + kh * D, ow * S - P + kw * D, c] * filt[kh, kw, c, f],
// zero outside the image, in float64 from the half inputs.
static bool run(Context &ctx) {
  const int n = TEST_N, h = CONV_H, w = CONV_W, c = CONV_C, f = CONV_F,
            k = TEST_K, s = CONV_STRIDE, d = CONV_DILATION, p = CONV_PAD;
  const int oh = (h + 2 * p - d * (k - 1) - 1) / s + 1,
            ow = (w + 2 * p - d * (k - 1) - 1) / s + 1;
  std::vector<float> img = roundHalf(ctx.uniform(size_t(n) * h * w * c)),
                     filt = roundHalf(ctx.uniform(size_t(k) * k * c * f));
  size_t outSize = size_t(n) * oh * ow * f;
  Buffer Img(img.size(), 2), Filt(filt.size(), 2), Out(outSize, 2);
  Img.upload(toHalf(img).data());
  Filt.upload(toHalf(filt).data());
  Out.poison();
  CHECK(LAUNCH(conv2d, Img.ptr, Filt.ptr, Out.ptr));
  SYNC();
  std::vector<uint16_t> out(outSize);
  Out.download(out.data());
  std::vector<double> got(outSize), want(outSize, 0.0);
  for (int b = 0; b < n; ++b)
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x)
        for (int kh = 0; kh < k; ++kh)
          for (int kw = 0; kw < k; ++kw) {
            int iy = y * s - p + kh * d, ix = x * s - p + kw * d;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w)
              continue;
            const float *pixel = &img[((size_t(b) * h + iy) * w + ix) * c];
            double *dst = &want[((size_t(b) * oh + y) * ow + x) * f];
            for (int ci = 0; ci < c; ++ci)
              for (int fi = 0; fi < f; ++fi)
                dst[fi] += double(pixel[ci]) *
                           filt[((size_t(kh) * k + kw) * c + ci) * f + fi];
          }
  for (size_t i = 0; i < outSize; ++i)
    got[i] = halfToFloat(out[i]);
  return compare(TEST_NAME, got, want, 1e-2, 1e-2, ctx.seed);
}

#elif defined(TEST_HADAMARD)
// The Walsh-Hadamard transform of each row, scaled by 1/sqrt(N), against
// the butterflies in float64.
static bool run(Context &ctx) {
  const int m = TEST_M, n = TEST_N;
  std::vector<float> x = ctx.uniform(size_t(m) * n);
  Buffer X(x.size(), 4), Out(x.size(), 4);
  X.upload(x.data());
  Out.poison();
  CHECK(LAUNCH(hadamard, X.ptr, Out.ptr));
  SYNC();
  std::vector<float> out(x.size());
  Out.download(out.data());
  std::vector<double> want(x.begin(), x.end());
  for (int r = 0; r < m; ++r) {
    double *row = &want[size_t(r) * n];
    for (int d = 1; d < n; d *= 2)
      for (int i = 0; i < n; ++i)
        if ((i & d) == 0) {
          double a = row[i], b = row[i + d];
          row[i] = a + b;
          row[i + d] = a - b;
        }
    for (int i = 0; i < n; ++i)
      row[i] /= std::sqrt(double(n));
  }
  return compare(TEST_NAME, widen(out), want, 1e-5, 1e-5, ctx.seed);
}

#else
#error "compile with one TEST_<KIND> macro"
#endif

int main() {
  Context ctx;
  return run(ctx) ? 0 : 1;
}
