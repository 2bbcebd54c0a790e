/*
** bench.cpp: psoc_bench, psoc side by side with d3dx12.h in one run.
**
**   check  psoc_check (full check, one reused psoc_diags) against
**          D3DX12ParsePipelineStream with callbacks that do nothing (the
**          parse-only walk), per stream of a mixed set;
**   build  a reused psoc builder (reset, adds, finish, stream free) against
**          constructing a CD3DX12_PIPELINE_STATE_STREAM2 and copying it to
**          a heap block (malloc, memcpy, free), for a typical pipeline;
**   hash   psoc_hash per stream (information only).
**
** Also (information): psoc_parse alone and psoc_check with
** PSOC_CHECK_STRUCTURE_ONLY (the stream-format rules: walk, duplicates,
** kind) over the same set, to split the check's cost into its structural
** part and the debug-layer rules.
**
** Not a test: nothing is asserted about time. Each figure is the median of
** several runs, each run long enough (about 100 ms, 10 ms with --quick) to
** swamp the clock's resolution; results feed a sink so the work cannot be
** optimised away. See tests/bench/README.md.
*/
#include <wsl/winadapter.h>
#include <directx/d3dx12.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "psoc.h"

/* bench_validation.c: full check with real-sized shader containers, as a
** multiple of the structural walk (information). */
extern "C" int bench_validation_main(int quick);
extern "C" int bench_lua_main(int quick);
/* bench_checksum.c: the container checksum against nettle's MD5. */
extern "C" int bench_checksum_main(int quick);
extern "C" void bench_checksum_loop(int which, size_t kb, long n);
extern "C" int bench_archive_main(int quick); /* bench_archive.c: cooked archives */
extern "C" int bench_archive_loop(const char* what, long iterations);
extern "C" void bench_archive_set_library(const char* dir);

namespace {

/* ---- defeating the optimiser ------------------------------------------- */

volatile uint64_t g_sink;

/* Machine-readable lines, printed after the tables. */
std::vector<std::string> g_results;

void result(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void result(const char* fmt, ...) {
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  g_results.push_back(line);
}

/* The compiler must assume 'p' is read and memory changed. */
inline void escape(const void* p) { asm volatile("" : : "g"(p) : "memory"); }
inline void clobber() { asm volatile("" : : : "memory"); }

/* ---- timing ------------------------------------------------------------ */

using Clock = std::chrono::steady_clock;

struct Options {
  int runs = 7;
  double run_ms = 100.0;
};

template <class F>
double time_ns(F& f, uint64_t iterations) {
  Clock::time_point t0 = Clock::now();
  for (uint64_t i = 0; i < iterations; i++) {
    f();
    clobber();
  }
  Clock::time_point t1 = Clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count();
}

/* Iterations so that one run takes about opt.run_ms. */
template <class F>
uint64_t calibrate(F& f, const Options& opt) {
  uint64_t n = 1;
  for (;;) {
    double ns = time_ns(f, n);
    if (ns >= opt.run_ms * 1e6 / 8 || n >= (uint64_t(1) << 40)) {
      double per = ns / double(n);
      uint64_t want = uint64_t(opt.run_ms * 1e6 / (per > 0 ? per : 1));
      return want ? want : 1;
    }
    n *= 2;
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Two workloads measured alternately (A, B, A, B, ...) so drift hits both;
** returns the median ns per call of each. */
struct Pair {
  double a_ns, b_ns;
};

template <class FA, class FB>
Pair measure_pair(FA& fa, FB& fb, const Options& opt) {
  uint64_t na = calibrate(fa, opt), nb = calibrate(fb, opt);
  time_ns(fa, na / 10 + 1); /* warm-up */
  time_ns(fb, nb / 10 + 1);
  std::vector<double> a, b;
  for (int r = 0; r < opt.runs; r++) {
    a.push_back(time_ns(fa, na) / double(na));
    b.push_back(time_ns(fb, nb) / double(nb));
  }
  return Pair{ median(a), median(b) };
}

template <class F>
double measure_one(F& f, const Options& opt) {
  uint64_t n = calibrate(f, opt);
  time_ns(f, n / 10 + 1);
  std::vector<double> v;
  for (int r = 0; r < opt.runs; r++) v.push_back(time_ns(f, n) / double(n));
  return median(v);
}

/* ---- the state the streams are made of --------------------------------- */

ID3D12RootSignature* const kRootSignature =
    reinterpret_cast<ID3D12RootSignature*>(uintptr_t(0x5eed0000u)); /* never dereferenced */

/* Typical DXIL sizes for a forward pass (the builder copies them). */
unsigned char g_vs_code[2048], g_ps_code[4096], g_hs_code[1536], g_ds_code[1536],
    g_cs_code[3072], g_ms_code[3072], g_small_code[2][64];

D3D12_SHADER_BYTECODE code(const unsigned char* p, size_t n) {
  D3D12_SHADER_BYTECODE b;
  b.pShaderBytecode = p;
  b.BytecodeLength = n;
  return b;
}

const D3D12_INPUT_ELEMENT_DESC g_elements[3] = {
#define PER_VERTEX D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA
  { "POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, PER_VERTEX, 0 },
  { "NORMAL", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 12, PER_VERTEX, 0 },
  { "TEXCOORD", 0, DXGI_FORMAT_R32G32_FLOAT, 0, 24, PER_VERTEX, 0 },
#undef PER_VERTEX
};

struct State {
  D3D12_SHADER_BYTECODE vs, ps, hs, ds, cs, ms;
  D3D12_INPUT_LAYOUT_DESC input_layout;
  CD3DX12_BLEND_DESC blend;
  CD3DX12_RASTERIZER_DESC rasterizer;
  CD3DX12_DEPTH_STENCIL_DESC depth_stencil;
  CD3DX12_DEPTH_STENCIL_DESC1 depth_stencil1;
  CD3DX12_DEPTH_STENCIL_DESC2 depth_stencil2;
  D3D12_RT_FORMAT_ARRAY rtv;
  DXGI_FORMAT dsv;
  DXGI_SAMPLE_DESC sample_desc;
  D3D12_PRIMITIVE_TOPOLOGY_TYPE topology;
};

State make_state(bool small_shaders) {
  for (size_t i = 0; i < sizeof g_vs_code; i++) g_vs_code[i] = (unsigned char)(i * 7 + 1);
  for (size_t i = 0; i < sizeof g_ps_code; i++) g_ps_code[i] = (unsigned char)(i * 11 + 2);
  State s;
  std::memset(&s, 0, sizeof s);
  if (small_shaders) {
    s.vs = code(g_small_code[0], sizeof g_small_code[0]);
    s.ps = code(g_small_code[1], sizeof g_small_code[1]);
  } else {
    s.vs = code(g_vs_code, sizeof g_vs_code);
    s.ps = code(g_ps_code, sizeof g_ps_code);
  }
  s.hs = code(g_hs_code, sizeof g_hs_code);
  s.ds = code(g_ds_code, sizeof g_ds_code);
  s.cs = code(g_cs_code, sizeof g_cs_code);
  s.ms = code(g_ms_code, sizeof g_ms_code);
  s.input_layout.pInputElementDescs = g_elements;
  s.input_layout.NumElements = 3;
  s.blend = CD3DX12_BLEND_DESC(D3D12_DEFAULT);
  s.blend.RenderTarget[0].BlendEnable = TRUE;
  s.blend.RenderTarget[0].SrcBlend = D3D12_BLEND_SRC_ALPHA;
  s.blend.RenderTarget[0].DestBlend = D3D12_BLEND_INV_SRC_ALPHA;
  s.rasterizer = CD3DX12_RASTERIZER_DESC(D3D12_DEFAULT);
  s.rasterizer.CullMode = D3D12_CULL_MODE_NONE;
  s.depth_stencil = CD3DX12_DEPTH_STENCIL_DESC(D3D12_DEFAULT);
  s.depth_stencil.DepthFunc = D3D12_COMPARISON_FUNC_GREATER_EQUAL;
  s.depth_stencil1 = CD3DX12_DEPTH_STENCIL_DESC1(D3D12_DEFAULT);
  s.depth_stencil2 = CD3DX12_DEPTH_STENCIL_DESC2(D3D12_DEFAULT);
  s.rtv.NumRenderTargets = 2;
  s.rtv.RTFormats[0] = DXGI_FORMAT_R11G11B10_FLOAT;
  s.rtv.RTFormats[1] = DXGI_FORMAT_R8G8B8A8_UNORM;
  s.dsv = DXGI_FORMAT_D32_FLOAT;
  s.sample_desc.Count = 1;
  s.sample_desc.Quality = 0;
  s.topology = D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE;
  return s;
}

/* ---- the mixed set of streams (built with d3dx12, copied to the heap) --- */

struct Stream {
  std::string name;
  unsigned char* data; /* 16-aligned heap copy */
  size_t size;
  unsigned subobjects;
};

template <class S>
Stream keep(const char* name, const S& s, unsigned subobjects) {
  Stream st;
  st.name = name;
  st.size = sizeof(S);
  st.data = static_cast<unsigned char*>(std::aligned_alloc(16, (sizeof(S) + 15) / 16 * 16));
  std::memcpy(st.data, &s, sizeof(S));
  st.subobjects = subobjects;
  return st;
}

struct TypicalGraphics { /* 11 subobjects */
  CD3DX12_PIPELINE_STATE_STREAM_ROOT_SIGNATURE RootSignature;
  CD3DX12_PIPELINE_STATE_STREAM_VS VS;
  CD3DX12_PIPELINE_STATE_STREAM_PS PS;
  CD3DX12_PIPELINE_STATE_STREAM_INPUT_LAYOUT InputLayout;
  CD3DX12_PIPELINE_STATE_STREAM_BLEND_DESC Blend;
  CD3DX12_PIPELINE_STATE_STREAM_RASTERIZER Rasterizer;
  CD3DX12_PIPELINE_STATE_STREAM_DEPTH_STENCIL DepthStencil;
  CD3DX12_PIPELINE_STATE_STREAM_RENDER_TARGET_FORMATS RTV;
  CD3DX12_PIPELINE_STATE_STREAM_DEPTH_STENCIL_FORMAT DSV;
  CD3DX12_PIPELINE_STATE_STREAM_SAMPLE_DESC SampleDesc;
  CD3DX12_PIPELINE_STATE_STREAM_PRIMITIVE_TOPOLOGY Topology;
};

struct MinimalGraphics {
  CD3DX12_PIPELINE_STATE_STREAM_ROOT_SIGNATURE RootSignature;
  CD3DX12_PIPELINE_STATE_STREAM_VS VS;
  CD3DX12_PIPELINE_STATE_STREAM_PS PS;
  CD3DX12_PIPELINE_STATE_STREAM_RENDER_TARGET_FORMATS RTV;
};

struct DepthOnly {
  CD3DX12_PIPELINE_STATE_STREAM_ROOT_SIGNATURE RootSignature;
  CD3DX12_PIPELINE_STATE_STREAM_INPUT_LAYOUT InputLayout;
  CD3DX12_PIPELINE_STATE_STREAM_VS VS;
  CD3DX12_PIPELINE_STATE_STREAM_RASTERIZER Rasterizer;
  CD3DX12_PIPELINE_STATE_STREAM_DEPTH_STENCIL DepthStencil;
  CD3DX12_PIPELINE_STATE_STREAM_DEPTH_STENCIL_FORMAT DSV;
  CD3DX12_PIPELINE_STATE_STREAM_RENDER_TARGET_FORMATS RTV;
};

struct Tessellation {
  CD3DX12_PIPELINE_STATE_STREAM_ROOT_SIGNATURE RootSignature;
  CD3DX12_PIPELINE_STATE_STREAM_INPUT_LAYOUT InputLayout;
  CD3DX12_PIPELINE_STATE_STREAM_VS VS;
  CD3DX12_PIPELINE_STATE_STREAM_HS HS;
  CD3DX12_PIPELINE_STATE_STREAM_DS DS;
  CD3DX12_PIPELINE_STATE_STREAM_PS PS;
  CD3DX12_PIPELINE_STATE_STREAM_PRIMITIVE_TOPOLOGY Topology;
  CD3DX12_PIPELINE_STATE_STREAM_RASTERIZER Rasterizer;
  CD3DX12_PIPELINE_STATE_STREAM_DEPTH_STENCIL DepthStencil;
  CD3DX12_PIPELINE_STATE_STREAM_RENDER_TARGET_FORMATS RTV;
  CD3DX12_PIPELINE_STATE_STREAM_DEPTH_STENCIL_FORMAT DSV;
};

struct Compute {
  CD3DX12_PIPELINE_STATE_STREAM_ROOT_SIGNATURE RootSignature;
  CD3DX12_PIPELINE_STATE_STREAM_CS CS;
};

struct Duplicates { /* DEPTH_STENCIL1 then DEPTH_STENCIL: invalid */
  CD3DX12_PIPELINE_STATE_STREAM_ROOT_SIGNATURE RootSignature;
  CD3DX12_PIPELINE_STATE_STREAM_VS VS;
  CD3DX12_PIPELINE_STATE_STREAM_PS PS;
  CD3DX12_PIPELINE_STATE_STREAM_DEPTH_STENCIL1 DepthStencil1;
  CD3DX12_PIPELINE_STATE_STREAM_DEPTH_STENCIL DepthStencil;
  CD3DX12_PIPELINE_STATE_STREAM_RENDER_TARGET_FORMATS RTV;
};

void fill_typical(TypicalGraphics& s, const State& st) {
  s.RootSignature = kRootSignature;
  s.VS = st.vs;
  s.PS = st.ps;
  s.InputLayout = st.input_layout;
  s.Blend = st.blend;
  s.Rasterizer = st.rasterizer;
  s.DepthStencil = st.depth_stencil;
  s.RTV = st.rtv;
  s.DSV = st.dsv;
  s.SampleDesc = st.sample_desc;
  s.Topology = st.topology;
}

template <class S>
void fill_stream2_like(S& s, const State& st) {
  s.pRootSignature = kRootSignature;
  s.InputLayout = st.input_layout;
  s.PrimitiveTopologyType = st.topology;
  s.VS = st.vs;
  s.PS = st.ps;
  s.BlendState = st.blend;
  s.DSVFormat = st.dsv;
  s.RasterizerState = st.rasterizer;
  s.RTVFormats = st.rtv;
  s.SampleDesc = st.sample_desc;
}

std::vector<Stream> make_streams(const State& st) {
  std::vector<Stream> out;
  {
    CD3DX12_PIPELINE_STATE_STREAM2 s;
    fill_stream2_like(s, st);
    s.DepthStencilState = st.depth_stencil1;
    out.push_back(keep("graphics, full STREAM2", s, 24));
  }
  {
    TypicalGraphics s;
    fill_typical(s, st);
    out.push_back(keep("graphics, typical", s, 11));
  }
  {
    MinimalGraphics s;
    s.RootSignature = kRootSignature;
    s.VS = st.vs;
    s.PS = st.ps;
    s.RTV = st.rtv;
    out.push_back(keep("graphics, minimal", s, 4));
  }
  {
    DepthOnly s;
    s.RootSignature = kRootSignature;
    s.InputLayout = st.input_layout;
    s.VS = st.vs;
    CD3DX12_RASTERIZER_DESC r = st.rasterizer;
    r.DepthBias = 100;
    r.SlopeScaledDepthBias = 1.5f;
    s.Rasterizer = r;
    s.DepthStencil = st.depth_stencil;
    s.DSV = st.dsv;
    D3D12_RT_FORMAT_ARRAY none;
    std::memset(&none, 0, sizeof none);
    s.RTV = none;
    out.push_back(keep("depth-only shadow", s, 7));
  }
  {
    Tessellation s;
    s.RootSignature = kRootSignature;
    s.InputLayout = st.input_layout;
    s.VS = st.vs;
    s.HS = st.hs;
    s.DS = st.ds;
    s.PS = st.ps;
    s.Topology = D3D12_PRIMITIVE_TOPOLOGY_TYPE_PATCH;
    s.Rasterizer = st.rasterizer;
    s.DepthStencil = st.depth_stencil;
    s.RTV = st.rtv;
    s.DSV = st.dsv;
    out.push_back(keep("tessellation", s, 11));
  }
  {
    Compute s;
    s.RootSignature = kRootSignature;
    s.CS = st.cs;
    out.push_back(keep("compute", s, 2));
  }
  {
    CD3DX12_PIPELINE_MESH_STATE_STREAM s;
    s.pRootSignature = kRootSignature;
    s.MS = st.ms;
    s.PS = st.ps;
    s.BlendState = st.blend;
    s.DepthStencilState = st.depth_stencil1;
    s.DSVFormat = st.dsv;
    s.RasterizerState = st.rasterizer;
    s.RTVFormats = st.rtv;
    out.push_back(keep("mesh (MESH_STATE_STREAM)", s, 15));
  }
  {
    CD3DX12_PIPELINE_STATE_STREAM3 s;
    fill_stream2_like(s, st);
    s.DepthStencilState = st.depth_stencil2;
    out.push_back(keep("graphics, STREAM3 (DS2)", s, 24));
  }
  {
    Duplicates s;
    s.RootSignature = kRootSignature;
    s.VS = st.vs;
    s.PS = st.ps;
    s.DepthStencil1 = st.depth_stencil1;
    s.DepthStencil = st.depth_stencil;
    s.RTV = st.rtv;
    out.push_back(keep("invalid: DS1 then DS", s, 6));
  }
  return out;
}

/* ---- the workloads ------------------------------------------------------ */

struct NoCallbacks final : ID3DX12PipelineParserCallbacks {};

/* Out of line so every call really walks the stream. */
__attribute__((noinline)) HRESULT d3dx12_walk(const Stream& s,
                                              ID3DX12PipelineParserCallbacks* cb) {
  D3D12_PIPELINE_STATE_STREAM_DESC d;
  d.SizeInBytes = s.size;
  d.pPipelineStateSubobjectStream = s.data;
  return D3DX12ParsePipelineStream(d, cb);
}

void fill_builder(psoc_builder* b, const State& st) {
  ID3D12RootSignature* rs = kRootSignature;
  psoc_builder_add(b, PSOC_SO_ROOT_SIGNATURE, &rs, sizeof rs);
  psoc_builder_add(b, PSOC_SO_VS, &st.vs, sizeof st.vs);
  psoc_builder_add(b, PSOC_SO_PS, &st.ps, sizeof st.ps);
  psoc_builder_add(b, PSOC_SO_INPUT_LAYOUT, &st.input_layout, sizeof st.input_layout);
  psoc_builder_add(b, PSOC_SO_BLEND, &st.blend, sizeof(D3D12_BLEND_DESC));
  psoc_builder_add(b, PSOC_SO_RASTERIZER, &st.rasterizer, sizeof(D3D12_RASTERIZER_DESC));
  psoc_builder_add(b, PSOC_SO_DEPTH_STENCIL, &st.depth_stencil, sizeof(D3D12_DEPTH_STENCIL_DESC));
  psoc_builder_add(b, PSOC_SO_RENDER_TARGET_FORMATS, &st.rtv, sizeof st.rtv);
  psoc_builder_add(b, PSOC_SO_DEPTH_STENCIL_FORMAT, &st.dsv, sizeof st.dsv);
  psoc_builder_add(b, PSOC_SO_SAMPLE_DESC, &st.sample_desc, sizeof st.sample_desc);
  psoc_builder_add(b, PSOC_SO_PRIMITIVE_TOPOLOGY, &st.topology, sizeof st.topology);
}

/* The d3dx12 way: a STREAM2 constructed from the same state, copied out. */
__attribute__((noinline)) void d3dx12_build(const State& st) {
  CD3DX12_PIPELINE_STATE_STREAM2 s;
  s.pRootSignature = kRootSignature;
  s.VS = st.vs;
  s.PS = st.ps;
  s.InputLayout = st.input_layout;
  s.BlendState = st.blend;
  s.RasterizerState = st.rasterizer;
  s.DepthStencilState = CD3DX12_DEPTH_STENCIL_DESC1(st.depth_stencil);
  s.RTVFormats = st.rtv;
  s.DSVFormat = st.dsv;
  s.SampleDesc = st.sample_desc;
  s.PrimitiveTopologyType = st.topology;
  void* heap = std::malloc(sizeof s);
  std::memcpy(heap, &s, sizeof s);
  escape(heap);
  g_sink = g_sink + static_cast<unsigned char*>(heap)[sizeof s - 1];
  std::free(heap);
}

__attribute__((noinline)) void psoc_build(psoc_builder* b, const State& st) {
  psoc_builder_reset(b);
  fill_builder(b, st);
  psoc_stream* s = nullptr;
  if (psoc_builder_finish(b, &s) != PSOC_OK) std::abort();
  escape(psoc_stream_data(s));
  g_sink = g_sink + psoc_stream_size(s);
  psoc_stream_free(s);
}

/* The same into caller memory (psoc_builder_finish_into, the form the
** bindings use): a buffer reused across calls, so no allocation. */
alignas(16) unsigned char g_into[128 * 1024];

__attribute__((noinline)) void psoc_build_into(psoc_builder* b, const State& st) {
  psoc_builder_reset(b);
  fill_builder(b, st);
  psoc_stream* s = nullptr;
  if (psoc_builder_finish_into(b, g_into, sizeof g_into, nullptr, &s) != PSOC_OK) std::abort();
  escape(psoc_stream_data(s));
  g_sink = g_sink + psoc_stream_size(s);
  psoc_stream_free(s); /* releases nothing */
}

/* The owning baseline: the same 11-subobject stream (d3dx12's structs, the
** layout psoc writes) constructed from the state, then deep-copied by hand
** the cheapest way: one malloc for the stream and everything it points to,
** each byte copied once (the stream, the two blobs, the input elements and
** their names), pointers patched, free. */
__attribute__((noinline)) void hand_deep_copy(const State& st) {
  TypicalGraphics s;
  fill_typical(s, st);
  const D3D12_INPUT_LAYOUT_DESC& il = st.input_layout;
  size_t name_len[16], names = 0;
  for (UINT i = 0; i < il.NumElements; i++) names += (name_len[i] = std::strlen(il.pInputElementDescs[i].SemanticName) + 1);
  auto up8 = [](size_t n) { return (n + 7) & ~size_t(7); };
  size_t total = up8(sizeof s) + up8(st.vs.BytecodeLength) + up8(st.ps.BytecodeLength) +
                 il.NumElements * sizeof(D3D12_INPUT_ELEMENT_DESC) + names;
  unsigned char* m = static_cast<unsigned char*>(std::malloc(total));
  if (!m) std::abort();
  std::memcpy(m, &s, sizeof s);
  TypicalGraphics* d = reinterpret_cast<TypicalGraphics*>(m);
  size_t off = up8(sizeof s);
  std::memcpy(m + off, st.vs.pShaderBytecode, st.vs.BytecodeLength);
  D3D12_SHADER_BYTECODE vs = st.vs, ps = st.ps;
  vs.pShaderBytecode = m + off;
  d->VS = vs;
  off += up8(st.vs.BytecodeLength);
  std::memcpy(m + off, st.ps.pShaderBytecode, st.ps.BytecodeLength);
  ps.pShaderBytecode = m + off;
  d->PS = ps;
  off += up8(st.ps.BytecodeLength);
  D3D12_INPUT_ELEMENT_DESC* e = reinterpret_cast<D3D12_INPUT_ELEMENT_DESC*>(m + off);
  std::memcpy(e, il.pInputElementDescs, il.NumElements * sizeof *e);
  off += il.NumElements * sizeof *e;
  for (UINT i = 0; i < il.NumElements; i++) {
    std::memcpy(m + off, il.pInputElementDescs[i].SemanticName, name_len[i]);
    e[i].SemanticName = reinterpret_cast<const char*>(m + off);
    off += name_len[i];
  }
  D3D12_INPUT_LAYOUT_DESC dl = { e, il.NumElements };
  d->InputLayout = dl;
  escape(m);
  g_sink = g_sink + m[total - 1];
  std::free(m);
}

/* Shaders of the build-mode rows: 4 KB and 20 KB each for VS and PS. */
unsigned char g_vs_4k[4096], g_ps_4k[4096], g_vs_20k[20480], g_ps_20k[20480];

State state_with_shaders(size_t kb) {
  State s = make_state(false);
  unsigned char* vs = kb >= 20 ? g_vs_20k : g_vs_4k;
  unsigned char* ps = kb >= 20 ? g_ps_20k : g_ps_4k;
  size_t n = kb >= 20 ? sizeof g_vs_20k : sizeof g_vs_4k;
  for (size_t i = 0; i < n; i++) vs[i] = (unsigned char)(i * 13 + 5), ps[i] = (unsigned char)(i * 17 + 3);
  s.vs = code(vs, n);
  s.ps = code(ps, n);
  return s;
}

/* ---- output --------------------------------------------------------------- */

void usage(const char* argv0) {
  std::printf("usage: %s [--quick] [--runs=N] [--ms=MS] [--archive] [--library=DIR]\n"
              "       [--loop=WHAT [--iterations=N]]\n"
              "  --quick         3 runs of ~10 ms per figure (CI smoke)\n"
              "  --runs=N        runs per figure, median reported (default 7)\n"
              "  --ms=MS         target duration of one run (default 100)\n"
              "  --loop=WHAT     no timing: run one workload N times, for a profiler\n"
              "                  (perf record, valgrind --tool=callgrind). WHAT is one of\n"
              "                  check, check_structure, walk (d3dx12), build, build_d3dx12,\n"
              "                  build_borrow, build_copy_at_finish, build_copy, build_hand,\n"
              "                  build_d3dx12_sized, build_borrow_into,\n"
              "                  build_copy_at_finish_into (the build_* loops but the first\n"
              "                  two with --shader-kb), checksum, checksum_nettle (these two\n"
              "                  hash a container of --shader-kb KB), hash; archive_read,\n"
              "                  archive_all, archive_lazy (bench_archive.c: read the cooked\n"
              "                  library's bytes, or open it and load every pipeline)\n"
              "  --archive       run only the archive figures (bench_archive.c)\n"
              "  --library=DIR   a psoc_gen_library output: the archive figures also evaluate\n"
              "                  its scripts against loading their archive\n"
              "  --shader-kb=N   4 or 20: VS and PS size of the build_* loops (default 4)\n"
              "  --iterations=N  iterations of --loop over the whole set (default 100000)\n",
              argv0);
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  bool quick = false, archive_only = false;
  std::string loop;
  long iterations = 100000;
  long shader_kb = 4;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
      opt.runs = 3;
      opt.run_ms = 10;
    } else if (a.rfind("--runs=", 0) == 0) {
      opt.runs = std::max(1, std::atoi(a.c_str() + 7));
    } else if (a.rfind("--ms=", 0) == 0) {
      opt.run_ms = std::max(1.0, std::atof(a.c_str() + 5));
    } else if (a == "--archive") {
      archive_only = true;
    } else if (a.rfind("--library=", 0) == 0) {
      bench_archive_set_library(argv[i] + 10);
    } else if (a.rfind("--loop=", 0) == 0) {
      loop = a.substr(7);
    } else if (a.rfind("--iterations=", 0) == 0) {
      iterations = std::max(1L, std::atol(a.c_str() + 13));
    } else if (a.rfind("--shader-kb=", 0) == 0) {
      shader_kb = std::max(1L, std::atol(a.c_str() + 12));
    } else {
      usage(argv[0]);
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }

  const State state = make_state(false);
  std::vector<Stream> streams = make_streams(state);
  psoc_diags diags;
  psoc_diags_init(&diags, nullptr);
  NoCallbacks noop;
  psoc_check_options structure_only;
  structure_only.flags = PSOC_CHECK_STRUCTURE_ONLY;
  structure_only.profile = nullptr;

  if (loop == "checksum" || loop == "checksum_nettle") { /* --shader-kb sizes the container */
    bench_checksum_loop(loop == "checksum" ? 0 : 1, (size_t)shader_kb, iterations);
    std::printf("loop %s: %ld iterations done\n", loop.c_str(), iterations);
    return 0;
  }
  if (loop.rfind("archive_", 0) == 0) return bench_archive_loop(loop.c_str() + 8, iterations); /* bench_archive.c */
  if (archive_only) return bench_archive_main(quick ? 1 : 0) ? 1 : 0; /* bench_archive.c alone */
  if (!loop.empty()) { /* profiling mode: one workload, no clock */
    psoc_builder* b = nullptr;
    if (psoc_builder_new(nullptr, &b) != PSOC_OK) return 1;
    const State sized = state_with_shaders(shader_kb >= 20 ? 20 : 4);
    if (loop == "build_borrow" || loop == "build_borrow_into") psoc_builder_set_mode(b, PSOC_BUILDER_BORROW);
    if (loop == "build_copy_at_finish" || loop == "build_copy_at_finish_into")
      psoc_builder_set_mode(b, PSOC_BUILDER_COPY_AT_FINISH);
    /* the workload is chosen once, so the loop does nothing but run it */
    static const char* const loops[] = { "check", "check_structure", "walk", "build", "build_d3dx12",
                                         "build_borrow", "build_copy_at_finish", "build_copy",
                                         "build_hand", "build_d3dx12_sized", "hash",
                                         "build_borrow_into", "build_copy_at_finish_into" };
    int w = -1;
    for (int k = 0; k < int(sizeof loops / sizeof loops[0]); k++)
      if (loop == loops[k]) w = k;
    if (w < 0) {
      usage(argv[0]);
      return 2;
    }
    for (long i = 0; i < iterations; i++) {
      switch (w) {
      case 0:
        for (const Stream& s : streams) {
          psoc_diags_clear(&diags);
          g_sink = g_sink + psoc_check(s.data, s.size, nullptr, &diags);
        }
        break;
      case 1:
        for (const Stream& s : streams) {
          psoc_diags_clear(&diags);
          g_sink = g_sink + psoc_check(s.data, s.size, &structure_only, &diags);
        }
        break;
      case 2:
        for (const Stream& s : streams) g_sink = g_sink + (uint32_t)d3dx12_walk(s, &noop);
        break;
      case 3: psoc_build(b, state); break;
      case 4: d3dx12_build(state); break;
      case 5: case 6: case 7: psoc_build(b, sized); break;
      case 8: hand_deep_copy(sized); break;
      case 9: d3dx12_build(sized); break;
      case 11: case 12: psoc_build_into(b, sized); break;
      default:
        for (const Stream& s : streams) {
          psoc_hash128 h;
          psoc_hash(s.data, s.size, PSOC_FOLLOW_POINTERS, nullptr, &h);
          g_sink = g_sink + h.lo;
        }
        break;
      }
      clobber();
    }
    psoc_builder_free(b);
    psoc_diags_free(&diags);
    for (Stream& s : streams) std::free(s.data);
    /* check_instructions.sh reads the stream count from this line */
    std::printf("loop %s: %ld iterations done (check set: %zu streams)\n", loop.c_str(), iterations,
                streams.size());
    return 0;
  }

  std::printf("psoc_bench %s: %d runs of ~%.0f ms per figure, median; psoc %s\n\n",
              quick ? "--quick" : "(default)", opt.runs, opt.run_ms, PSOC_VERSION_STRING);

  /* ---- check ---- */
  std::printf("check: psoc_check (full check, reused diags, default options) vs\n"
              "       D3DX12ParsePipelineStream with no-op callbacks (parse-only walk)\n\n");
  std::printf("  %-26s %6s %6s %6s %10s %10s %7s %10s\n", "stream", "subobj", "bytes", "diags",
              "psoc ns", "d3dx12 ns", "ratio", "hash ns");
  double sum_psoc = 0, sum_d3dx12 = 0;
  for (const Stream& s : streams) {
    psoc_diags_clear(&diags);
    psoc_status verdict = psoc_check(s.data, s.size, nullptr, &diags);
    size_t ndiags = diags.count;
    HRESULT hr = d3dx12_walk(s, &noop);
    auto check = [&] {
      psoc_diags_clear(&diags);
      g_sink = g_sink + psoc_check(s.data, s.size, nullptr, &diags) + diags.count;
    };
    auto walk = [&] { g_sink = g_sink + (uint32_t)d3dx12_walk(s, &noop); };
    Pair p = measure_pair(check, walk, opt);
    auto hash = [&] {
      psoc_hash128 h;
      psoc_hash(s.data, s.size, PSOC_FOLLOW_POINTERS, nullptr, &h);
      g_sink = g_sink + h.lo;
    };
    double hash_ns = measure_one(hash, opt);
    sum_psoc += p.a_ns;
    sum_d3dx12 += p.b_ns;
    std::printf("  %-26s %6u %6zu %6zu %10.1f %10.1f %7.2f %10.1f%s\n", s.name.c_str(),
                s.subobjects, s.size, ndiags, p.a_ns, p.b_ns, p.a_ns / p.b_ns, hash_ns,
                verdict != PSOC_OK ? "  (psoc: invalid)"
                : hr != S_OK       ? "  (d3dx12: E_INVALIDARG)"
                                   : "");
    result("RESULT check_psoc_ns \"%s\" %.1f", s.name.c_str(), p.a_ns);
    result("RESULT check_d3dx12_ns \"%s\" %.1f", s.name.c_str(), p.b_ns);
    result("RESULT hash_ns \"%s\" %.1f", s.name.c_str(), hash_ns);
  }
  /* the whole mixed set in one loop, per stream */
  auto check_all = [&] {
    for (const Stream& s : streams) {
      psoc_diags_clear(&diags);
      g_sink = g_sink + psoc_check(s.data, s.size, nullptr, &diags) + diags.count;
    }
  };
  auto walk_all = [&] {
    for (const Stream& s : streams) g_sink = g_sink + (uint32_t)d3dx12_walk(s, &noop);
  };
  Pair mixed = measure_pair(check_all, walk_all, opt);
  double n = double(streams.size());
  double check_ratio = mixed.a_ns / mixed.b_ns;
  std::printf("  %-26s %6s %6s %6s %10.1f %10.1f %7.2f\n", "mixed set, per stream", "", "", "",
              mixed.a_ns / n, mixed.b_ns / n, check_ratio);
  /* information: how much of psoc_check is the structural parse */
  auto parse_all = [&] {
    for (const Stream& s : streams) {
      psoc_parsed parsed;
      psoc_diags_clear(&diags);
      g_sink = g_sink + psoc_parse(s.data, s.size, &parsed, &diags) + parsed.count;
    }
  };
  double parse_ns = measure_one(parse_all, opt);
  std::printf("  %-26s %6s %6s %6s %10.1f %10s %7.2f   (psoc_parse alone, info)\n",
              "mixed set, parse only", "", "", "", parse_ns / n, "", parse_ns / mixed.b_ns);
  /* information: the structural part of the check (PSOC_CHECK_STRUCTURE_ONLY:
  ** walk, duplicates, kind); the rest of psoc_check is resolve and rules */
  auto structure_all = [&] {
    for (const Stream& s : streams) {
      psoc_diags_clear(&diags);
      g_sink = g_sink + psoc_check(s.data, s.size, &structure_only, &diags) + diags.count;
    }
  };
  double structure_ns = measure_one(structure_all, opt);
  std::printf("  %-26s %6s %6s %6s %10.1f %10s %7.2f   (STRUCTURE_ONLY check, info)\n",
              "mixed set, structure only", "", "", "", structure_ns / n, "",
              structure_ns / mixed.b_ns);
  std::printf("  (of the full check: structure %.0f%%, resolve and debug-layer rules %.0f%%)\n",
              100.0 * structure_ns / mixed.a_ns, 100.0 * (mixed.a_ns - structure_ns) / mixed.a_ns);
  std::printf("  (sum of the per-stream medians: psoc %.1f ns, d3dx12 %.1f ns, ratio %.2f)\n\n",
              sum_psoc, sum_d3dx12, sum_psoc / sum_d3dx12);
  result("RESULT check_mixed_psoc_ns_per_stream %.1f", mixed.a_ns / n);
  result("RESULT check_mixed_d3dx12_ns_per_stream %.1f", mixed.b_ns / n);
  result("RESULT parse_mixed_psoc_ns_per_stream %.1f", parse_ns / n);
  result("RESULT check_structure_mixed_psoc_ns_per_stream %.1f", structure_ns / n);

  /* ---- build ---- */
  std::printf("build: reused psoc builder (reset, 11 adds, finish, stream free) vs\n"
              "       CD3DX12_PIPELINE_STATE_STREAM2 constructed + copied (malloc, memcpy, free)\n"
              "       typical pipeline: root sig, VS %zu B, PS %zu B, input layout 3, blend,\n"
              "       rasterizer, depth-stencil, RTV, DSV, sample desc, topology\n\n",
              (size_t)state.vs.BytecodeLength, (size_t)state.ps.BytecodeLength);
  psoc_builder* builder = nullptr;
  if (psoc_builder_new(nullptr, &builder) != PSOC_OK) return 1;
  std::printf("  %-26s %10s %10s %7s\n", "case", "psoc ns", "d3dx12 ns", "ratio");
  auto build_psoc = [&] { psoc_build(builder, state); };
  auto build_d3dx12 = [&] { d3dx12_build(state); };
  Pair build = measure_pair(build_psoc, build_d3dx12, opt);
  double build_ratio = build.a_ns / build.b_ns;
  std::printf("  %-26s %10.1f %10.1f %7.2f\n", "typical (2 KB + 4 KB)", build.a_ns, build.b_ns,
              build_ratio);
  const State small = make_state(true);
  auto build_psoc_small = [&] { psoc_build(builder, small); };
  auto build_d3dx12_small = [&] { d3dx12_build(small); };
  Pair build_small = measure_pair(build_psoc_small, build_d3dx12_small, opt);
  std::printf("  %-26s %10.1f %10.1f %7.2f\n", "same, 64-byte shaders", build_small.a_ns,
              build_small.b_ns, build_small.a_ns / build_small.b_ns);
  result("RESULT build_psoc_ns %.1f", build.a_ns);
  result("RESULT build_d3dx12_ns %.1f", build.b_ns);
  result("RESULT build_small_psoc_ns %.1f", build_small.a_ns);
  result("RESULT build_small_d3dx12_ns %.1f", build_small.b_ns);
  std::printf("\n");

  /* ---- build modes ---- */
  std::printf("build modes (psoc_builder_set_mode), typical pipeline with VS and PS of 4 KB and 20 KB:\n"
              "  borrow         PSOC_BUILDER_BORROW vs the STREAM2 construct+copy above (pointers only)\n"
              "  copy at finish PSOC_BUILDER_COPY_AT_FINISH vs a hand-written deep copy (one malloc,\n"
              "                 each byte copied once): both self-contained\n"
              "  copy           PSOC_BUILDER_COPY (the default) vs the same hand-written deep copy\n"
              "  ... into       borrow and copy at finish with psoc_builder_finish_into a reused\n"
              "                 buffer instead of finish (information)\n\n");
  std::printf("  %-26s %10s %10s %7s\n", "case", "psoc ns", "base ns", "ratio");
  double mode_ratio[2][3];
  for (int k = 0; k < 2; k++) {
    size_t kb = k ? 20 : 4;
    const State sized = state_with_shaders(kb);
    static const psoc_builder_mode modes[3] = { PSOC_BUILDER_BORROW, PSOC_BUILDER_COPY_AT_FINISH,
                                                PSOC_BUILDER_COPY };
    static const char* const names[3] = { "borrow", "copy at finish", "copy" };
    for (int m = 0; m < 3; m++) {
      psoc_builder_set_mode(builder, modes[m]);
      auto ours = [&] { psoc_build(builder, sized); };
      auto base_d3dx12 = [&] { d3dx12_build(sized); };
      auto base_hand = [&] { hand_deep_copy(sized); };
      Pair r = m == 0 ? measure_pair(ours, base_d3dx12, opt) : measure_pair(ours, base_hand, opt);
      mode_ratio[k][m] = r.a_ns / r.b_ns;
      char label[64];
      std::snprintf(label, sizeof label, "%s, 2 x %zu KB", names[m], kb);
      std::printf("  %-26s %10.1f %10.1f %7.2f\n", label, r.a_ns, r.b_ns, mode_ratio[k][m]);
      result("RESULT build_%s_%zuk_psoc_ns %.1f", m == 0 ? "borrow" : m == 1 ? "copy_at_finish" : "copy", kb, r.a_ns);
      result("RESULT build_%s_%zuk_base_ns %.1f", m == 0 ? "borrow" : m == 1 ? "copy_at_finish" : "copy", kb, r.b_ns);
    }
  }
  /* information: the two self-describing modes finishing into a reused
  ** caller buffer (psoc_builder_finish_into, no allocation on psoc's side) */
  double into_ratio[2][2];
  for (int k = 0; k < 2; k++) {
    size_t kb = k ? 20 : 4;
    const State sized = state_with_shaders(kb);
    for (int m = 0; m < 2; m++) {
      psoc_builder_set_mode(builder, m == 0 ? PSOC_BUILDER_BORROW : PSOC_BUILDER_COPY_AT_FINISH);
      auto ours = [&] { psoc_build_into(builder, sized); };
      auto base_d3dx12 = [&] { d3dx12_build(sized); };
      auto base_hand = [&] { hand_deep_copy(sized); };
      Pair r = m == 0 ? measure_pair(ours, base_d3dx12, opt) : measure_pair(ours, base_hand, opt);
      into_ratio[k][m] = r.a_ns / r.b_ns;
      char label[64];
      std::snprintf(label, sizeof label, "%s into, 2 x %zu KB", m == 0 ? "borrow" : "copy at finish", kb);
      std::printf("  %-26s %10.1f %10.1f %7.2f\n", label, r.a_ns, r.b_ns, into_ratio[k][m]);
      result("RESULT build_%s_into_%zuk_psoc_ns %.1f", m == 0 ? "borrow" : "copy_at_finish", kb, r.a_ns);
      result("RESULT build_%s_into_%zuk_base_ns %.1f", m == 0 ? "borrow" : "copy_at_finish", kb, r.b_ns);
    }
  }
  psoc_builder_set_mode(builder, PSOC_BUILDER_COPY);
  std::printf("\n");
  psoc_builder_free(builder);

  std::printf("validation depth (bench_validation.c; information, not compared with d3dx12):\n");
  std::fflush(stdout);
  if (bench_validation_main(quick ? 1 : 0) != 0) std::printf("  (bench_validation failed)\n");
  if (bench_checksum_main(quick ? 1 : 0) != 0) std::printf("  (bench_checksum failed)\n");
  if (bench_lua_main(quick ? 1 : 0) != 0) std::printf("  (bench_lua failed)\n");
  if (bench_archive_main(quick ? 1 : 0) != 0) std::printf("  (bench_archive failed)\n");
  std::fflush(stdout);
  std::printf("\n");

  for (const std::string& line : g_results) std::printf("%s\n", line.c_str());
  std::printf("RATIO check %.2f\n", check_ratio);
  std::printf("RATIO build %.2f\n", build_ratio);
  std::printf("RATIO build_small_shaders %.2f\n", build_small.a_ns / build_small.b_ns);
  std::printf("RATIO parse_only %.2f\n", parse_ns / mixed.b_ns);
  std::printf("RATIO check_structure %.2f\n", structure_ns / mixed.b_ns);
  std::printf("TARGET check <= 2.00: %s\n", check_ratio <= 2.0 ? "met" : "not met");
  std::printf("TARGET build <= 2.00: %s\n", build_ratio <= 2.0 ? "met" : "not met");
  for (int k = 0; k < 2; k++) {
    int kb = k ? 20 : 4;
    std::printf("RATIO build_borrow_%dk %.2f\n", kb, mode_ratio[k][0]);
    std::printf("RATIO build_copy_at_finish_%dk %.2f\n", kb, mode_ratio[k][1]);
    std::printf("RATIO build_copy_%dk %.2f\n", kb, mode_ratio[k][2]);
    std::printf("RATIO build_borrow_into_%dk %.2f\n", kb, into_ratio[k][0]);
    std::printf("RATIO build_copy_at_finish_into_%dk %.2f\n", kb, into_ratio[k][1]);
  }
  for (int k = 0; k < 2; k++) {
    int kb = k ? 20 : 4;
    std::printf("TARGET build_borrow_%dk <= 2.00: %s\n", kb, mode_ratio[k][0] <= 2.0 ? "met" : "not met");
    std::printf("TARGET build_copy_at_finish_%dk <= 1.30: %s\n", kb,
                mode_ratio[k][1] <= 1.3 ? "met" : "not met");
  }

  psoc_diags_free(&diags);
  for (Stream& s : streams) std::free(s.data);
  return 0;
}
