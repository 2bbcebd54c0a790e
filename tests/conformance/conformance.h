/*
** conformance.h: shared pieces of the d3dx12.h conformance tests.
**
** d3dx12.h is the oracle here: streams it builds must parse in psoc with
** the same values, streams psoc builds must be byte-identical to its
** structs and accepted by its parser. Nothing from d3dx12.h is reused by
** psoc itself.
*/
#ifndef PSOC_CONFORMANCE_H
#define PSOC_CONFORMANCE_H

#include <wsl/winadapter.h>
#include <directx/d3dx12.h>

#include <check.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "psoc.h"

/* ---- a d3dx12 object built in zeroed storage ------------------------
** d3dx12's constructors assign members one by one, which leaves padding
** bytes as they were. Zeroing the storage first makes padding zero, the
** way psoc's builder writes it, so whole streams compare byte for byte. */
template <class T>
class Zeroed {
 public:
  template <class... A>
  explicit Zeroed(A&&... args) {
    std::memset(storage_, 0, sizeof storage_);
    obj_ = new (storage_) T(std::forward<A>(args)...);
  }
  ~Zeroed() { obj_->~T(); }
  Zeroed(const Zeroed&) = delete;
  Zeroed& operator=(const Zeroed&) = delete;
  T& operator*() { return *obj_; }
  T* operator->() { return obj_; }
  const void* bytes() const { return storage_; }
  static constexpr size_t size() { return sizeof(T); }

 private:
  alignas(T) unsigned char storage_[sizeof(T)];
  T* obj_;
};

/* ---- subobjects newer than the installed header -----------------------
** The documented stream layout (type, then the payload at its natural
** alignment, the whole thing pointer-aligned), for types 27-29 and for
** deliberately unknown types. */
template <class Payload, uint32_t Type>
struct alignas(void*) LocalSubobject {
  uint32_t type;
  Payload payload;
  LocalSubobject() : type(Type), payload() {}
  explicit LocalSubobject(const Payload& p) : type(Type), payload(p) {}
};

/* ---- the reference state: a non-default value in every field -------- */
struct Fixture {
  ID3D12RootSignature* root_signature;  /* fake, never dereferenced */
  unsigned char code[8][96];            /* VS PS DS HS GS CS AS MS bytes */
  D3D12_SHADER_BYTECODE vs, ps, ds, hs, gs, cs, as, ms;
  D3D12_INPUT_ELEMENT_DESC elements[3];
  D3D12_INPUT_LAYOUT_DESC input_layout;
  D3D12_SO_DECLARATION_ENTRY so_entries[3];
  UINT so_strides[2];
  D3D12_STREAM_OUTPUT_DESC stream_output;
  CD3DX12_BLEND_DESC blend;
  UINT sample_mask;
  CD3DX12_RASTERIZER_DESC rasterizer;       /* every field non-default, not valid */
  CD3DX12_RASTERIZER_DESC rasterizer_valid; /* as above but valid for psoc_check */
  psoc_rasterizer_desc1 rasterizer1;
  psoc_rasterizer_desc2 rasterizer2;
  CD3DX12_DEPTH_STENCIL_DESC depth_stencil;
  CD3DX12_DEPTH_STENCIL_DESC1 depth_stencil1;
  CD3DX12_DEPTH_STENCIL_DESC2 depth_stencil2;
  D3D12_INDEX_BUFFER_STRIP_CUT_VALUE strip_cut;
  D3D12_PRIMITIVE_TOPOLOGY_TYPE topology;
  D3D12_RT_FORMAT_ARRAY rtv;
  DXGI_FORMAT dsv;
  DXGI_SAMPLE_DESC sample_desc;
  UINT node_mask;
  unsigned char cached_blob[40];
  D3D12_CACHED_PIPELINE_STATE cached_pso;
  D3D12_PIPELINE_STATE_FLAGS flags;
  D3D12_VIEW_INSTANCE_LOCATION view_locations[2];
  CD3DX12_VIEW_INSTANCING_DESC view_instancing;
  unsigned char serialized_rs_blob[24];
  psoc_serialized_root_signature_desc serialized_rs;
};

/* Built once (zeroed static storage, then every field assigned). */
const Fixture& fixture();
/* The fixture as a D3D12_GRAPHICS_PIPELINE_STATE_DESC (every member set). */
D3D12_GRAPHICS_PIPELINE_STATE_DESC full_graphics_desc();

/* The fixture's payload for a subobject type and its size; NULL for 23. */
const void* fixture_payload(uint32_t type, size_t* size);

/* ---- independent knowledge of the stream layout -----------------------
** From d3dx12's CD3DX12_PIPELINE_STATE_STREAM_* types (and LocalSubobject
** for 27-29), never from psoc's registry. */
struct LayoutInfo {
  uint32_t type;
  const char* name;
  size_t payload_offset;
  size_t payload_size;
  size_t stride;
};
const LayoutInfo* layout_of(uint32_t type); /* NULL when unknown */

/* ---- comparisons (ck_assert inside; 'what' names the case) ----------- */

/* Two payloads of 'type': every pointer field by the content it points to
** (arrays element by element, strings by value, blobs by bytes), every
** other field byte exactly. Padding is not compared; with
** psoc_zero_padding, the actual payload's padding must be zero. */
void expect_payload_eq(uint32_t type, const void* expected, const void* actual, const char* what,
                       bool psoc_zero_padding = false);

/* A d3dx12-built stream against a psoc stream: same size, same subobjects,
** same field bytes except the pointers to out-of-line data, whose contents
** must match; every padding byte of the psoc stream is zero. */
void expect_stream_eq(const void* expected, size_t expected_size, const void* actual,
                      size_t actual_size, const char* what);

/* Same as expect_stream_eq, and psoc's pointers must not alias the
** caller's memory (the builder deep-copies). */
void expect_deep_copied(const void* source_stream, size_t size, const void* psoc_bytes,
                        const char* what);

/* Field-by-field graphics/compute desc equality. With by_content, pointer
** fields compare by what they point to (for a psoc deep copy). */
void expect_graphics_desc_eq(const D3D12_GRAPHICS_PIPELINE_STATE_DESC& expected,
                             const D3D12_GRAPHICS_PIPELINE_STATE_DESC& actual, bool by_content,
                             const char* what);
void expect_compute_desc_eq(const D3D12_COMPUTE_PIPELINE_STATE_DESC& expected,
                            const D3D12_COMPUTE_PIPELINE_STATE_DESC& actual, bool by_content,
                            const char* what);

/* ---- psoc helpers --------------------------------------------------- */

/* Owns a psoc stream. */
struct StreamDeleter {
  void operator()(psoc_stream* s) const { psoc_stream_free(s); }
};
using StreamPtr = std::unique_ptr<psoc_stream, StreamDeleter>;

/* Build a psoc stream from fixture payloads of the given types, in order. */
StreamPtr build_fixture_stream(const std::vector<uint32_t>& types);

/* psoc_parse + psoc_resolve, asserting both succeed. */
psoc_resolved parse_and_resolve(const void* data, size_t size, const char* what);

/* Options for psoc_check: the "max" capability profile, so optional
** features (depth bounds, view instancing, ...) are not errors. */
const psoc_check_options* max_profile();

/* psoc_check (max profile) with a fresh diags list; returns its error
** count. */
size_t check_errors(const void* data, size_t size);

/* psoc_check (max profile) reports no error; the message names the first. */
void expect_clean_check(const void* data, size_t size, const char* what);

/* Count diagnostics with 'code' in a list. */
size_t count_code(const psoc_diags& diags, psoc_code code);

/* ---- suites ------------------------------------------------------- */
Suite* builder_identity_suite();
Suite* parse_d3dx12_suite();
Suite* d3dx12_parser_suite();
Suite* desc_suite();

#endif
