/*
** enums.h: psoc's enum name tables (internal).
**
** The tables are generated into enums.c by scripts/gen_enums.lua from the
** installed DirectX headers plus a few newer values; the lookups live in
** enums_lookup.c. Values are in header order; aliases (values with the
** same number) are all kept and the first one is the canonical name.
*/
#ifndef PSOC_ENUMS_H
#define PSOC_ENUMS_H

#include "psoc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* psoc_enum_dxgi_format (DXGI_FORMAT, key "format") is declared in psoc.h. */
extern const psoc_enum psoc_enum_fill_mode;             /* D3D12_FILL_MODE */
extern const psoc_enum psoc_enum_cull_mode;             /* D3D12_CULL_MODE */
extern const psoc_enum psoc_enum_conservative_raster;   /* D3D12_CONSERVATIVE_RASTERIZATION_MODE */
extern const psoc_enum psoc_enum_line_raster;           /* D3D12_LINE_RASTERIZATION_MODE */
extern const psoc_enum psoc_enum_blend;                 /* D3D12_BLEND */
extern const psoc_enum psoc_enum_blend_op;              /* D3D12_BLEND_OP */
extern const psoc_enum psoc_enum_logic_op;              /* D3D12_LOGIC_OP */
extern const psoc_enum psoc_enum_color_write;           /* D3D12_COLOR_WRITE_ENABLE (flags) */
extern const psoc_enum psoc_enum_comparison_func;       /* D3D12_COMPARISON_FUNC */
extern const psoc_enum psoc_enum_stencil_op;            /* D3D12_STENCIL_OP */
extern const psoc_enum psoc_enum_depth_write_mask;      /* D3D12_DEPTH_WRITE_MASK */
extern const psoc_enum psoc_enum_input_classification;  /* D3D12_INPUT_CLASSIFICATION */
extern const psoc_enum psoc_enum_strip_cut;             /* D3D12_INDEX_BUFFER_STRIP_CUT_VALUE */
extern const psoc_enum psoc_enum_topology_type;         /* D3D12_PRIMITIVE_TOPOLOGY_TYPE */
extern const psoc_enum psoc_enum_pipeline_flags;        /* D3D12_PIPELINE_STATE_FLAGS (flags) */
extern const psoc_enum psoc_enum_view_instancing_flags; /* D3D12_VIEW_INSTANCING_FLAGS (flags) */
extern const psoc_enum psoc_enum_subobject_type;        /* D3D12_PIPELINE_STATE_SUBOBJECT_TYPE */
/* root signatures (src/rootsig.c); their flags tables leave out *_NONE */
extern const psoc_enum psoc_enum_shader_visibility;     /* D3D12_SHADER_VISIBILITY */
extern const psoc_enum psoc_enum_root_signature_flags;  /* D3D12_ROOT_SIGNATURE_FLAGS (flags) */
extern const psoc_enum psoc_enum_descriptor_range_flags; /* D3D12_DESCRIPTOR_RANGE_FLAGS (flags) */
extern const psoc_enum psoc_enum_root_descriptor_flags; /* D3D12_ROOT_DESCRIPTOR_FLAGS (flags) */
extern const psoc_enum psoc_enum_filter;                /* D3D12_FILTER */
extern const psoc_enum psoc_enum_texture_address_mode;  /* D3D12_TEXTURE_ADDRESS_MODE */
extern const psoc_enum psoc_enum_static_border_color;   /* D3D12_STATIC_BORDER_COLOR */

/* Every table above, psoc_enum_dxgi_format first. */
extern const psoc_enum *const psoc_enum_all[];
extern const size_t psoc_enum_all_count;

/* Keys and full names are shorter than this; longer input never matches. */
#define PSOC_ENUM_NAME_MAX 80

/* Up to 'max' keys of 'e' closest to 'wrong' (case-insensitive optimal
** string alignment distance, i.e. Damerau-Levenshtein with adjacent
** transpositions), closest first, ties in table order. Only keys within
** max(2, strlen(wrong) / 3) edits are returned. 'wrong' may carry the
** enum's prefix ("D3D12_CULL_MODE_BAKC", "CULL_MODE_BAKC"): the input is
** also tried without it. The pointers stored in 'out' are the tables' own
** key strings. Returns how many were stored; 0 for NULL arguments, max 0,
** or input (with and without the prefix) of PSOC_ENUM_NAME_MAX characters
** or more. Never allocates. */
size_t psoc_enum_suggest(const psoc_enum *e, const char *wrong, const char **out, size_t max);

#ifdef __cplusplus
}
#endif

#endif

