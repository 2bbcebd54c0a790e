/*
** gen_annotations_rootsig.h: the root-signature part of the LuaLS
** annotations (pso.root_signature, bindings/lua/pso_rootsig.c). Included
** once by scripts/gen_annotations.c after its output helpers; the enum
** values come from src/rootsig.c's tables, the keys are the ones
** pso_rootsig.c reads.
*/
#ifndef GEN_ANNOTATIONS_ROOTSIG_H
#define GEN_ANNOTATIONS_ROOTSIG_H

#include "rootsig.h"

static const char rootsig_types[] =
  "\n---@alias pso.rootsig.version\n"
  "---| \"1.0\"\n"
  "---| \"1.1\"\n"
  "---@alias pso.rootsig.unbounded\n"
  "---| \"unbounded\" # UINT_MAX descriptors\n"
  "---@alias pso.rootsig.append\n"
  "---| \"append\" # D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND\n"
  "\n---A range of a descriptor table (a descriptor heap's registers).\n"
  "---@class (exact) pso.rootsig.Range\n"
  "---@field register? integer the first register (0)\n"
  "---@field space? integer register space (0)\n"
  "---@field count? integer|pso.rootsig.unbounded descriptors (1)\n"
  "---@field offset? integer|pso.rootsig.append from the table's start (\"append\")\n"
  "---@field flags? pso.flags.descriptor_range_flags version 1.1 only\n"
  "\n---One range: exactly one of its kinds (a table holds samplers or CBV/SRV/UAV, not both).\n"
  "---@class (exact) pso.rootsig.TableEntry\n"
  "---@field srv? pso.rootsig.Range\n"
  "---@field uav? pso.rootsig.Range\n"
  "---@field cbv? pso.rootsig.Range\n"
  "---@field sampler? pso.rootsig.Range\n"
  "\n---A root descriptor (CBV, SRV or UAV).\n"
  "---@class (exact) pso.rootsig.Descriptor\n"
  "---@field register? integer (0)\n"
  "---@field space? integer (0)\n"
  "---@field flags? pso.flags.root_descriptor_flags version 1.1 only\n"
  "\n---Root constants (32-bit values in a constant buffer register).\n"
  "---@class (exact) pso.rootsig.Constants\n"
  "---@field register? integer (0)\n"
  "---@field space? integer (0)\n"
  "---@field count integer the number of 32-bit values\n"
  "\n---A root parameter: exactly one of constants, cbv, srv, uav, table.\n"
  "---@class (exact) pso.rootsig.Parameter\n"
  "---@field constants? pso.rootsig.Constants\n"
  "---@field cbv? pso.rootsig.Descriptor\n"
  "---@field srv? pso.rootsig.Descriptor\n"
  "---@field uav? pso.rootsig.Descriptor\n"
  "---@field table? pso.rootsig.TableEntry[]\n"
  "---@field visibility? pso.enum.shader_visibility (\"all\")\n"
  "\n---A static sampler (defaults: d3dx12's CD3DX12_STATIC_SAMPLER_DESC).\n"
  "---@class (exact) pso.rootsig.StaticSampler\n"
  "---@field register? integer (0)\n"
  "---@field space? integer (0)\n"
  "---@field visibility? pso.enum.shader_visibility (\"all\")\n"
  "---@field filter? pso.enum.filter (\"anisotropic\")\n"
  "---@field address? pso.enum.texture_address_mode all three at once (\"wrap\")\n"
  "---@field address_u? pso.enum.texture_address_mode\n"
  "---@field address_v? pso.enum.texture_address_mode\n"
  "---@field address_w? pso.enum.texture_address_mode\n"
  "---@field mip_lod_bias? number (0)\n"
  "---@field max_anisotropy? integer (16)\n"
  "---@field comparison? pso.enum.comparison_func (\"less_equal\")\n"
  "---@field border? pso.enum.static_border_color (\"opaque_white\")\n"
  "---@field min_lod? number (0)\n"
  "---@field max_lod? number (the largest float)\n"
  "\n---A root signature declaration (pso.root_signature).\n"
  "---@class (exact) pso.rootsig.Decl\n"
  "---@field name? string pipelines may then say root_signature = name\n"
  "---@field version? pso.rootsig.version (\"1.1\"; the numbers 1.0 and 1.1 work too)\n"
  "---@field flags? pso.flags.root_signature_flags\n"
  "---@field parameters? pso.rootsig.Parameter[]\n"
  "---@field static_samplers? pso.rootsig.StaticSampler[]\n";

static const char rootsig_funcs[] =
  "\n---Serialize a root signature with psoc's serializer: the bytes\n"
  "---D3D12SerializeVersionedRootSignature returns, for serialized_root_signature.\n"
  "---Raises on what D3D12 rejects; returns the warnings.\n"
  "---@param decl pso.rootsig.Decl\n"
  "---@return pso.Blob blob\n"
  "---@return pso.Diag[] warnings\n"
  "function pso.root_signature(decl) end\n"
  "\n---The declaration of a serialized root signature (any DXBC container with RTS0).\n"
  "---@param blob pso.Blob\n"
  "---@return pso.rootsig.Decl\n"
  "function pso.root_signature_desc(blob) end\n"
  "\n---The root signature this state declared with name = NAME, or nil.\n"
  "---@param name string\n"
  "---@return pso.Blob?\n"
  "function pso.named_root_signature(name) end\n";

/* The types and enums (anywhere in the file) and the module's functions
** (after `local pso = {}`). */
static void emit_rootsig(buf *b) {
  out(b, "\n-- Root signatures (pso.root_signature) ----------------------------------------\n");
  /* the enums' aliases (pso.enum.shader_visibility, ...) come with every
  ** other table of psoc_enum_all; root-signature flags are a name or a list
  ** of names (no integers) */
  out(b, "\n---@alias pso.flags.root_signature_flags pso.enum.root_signature_flags|"
         "pso.enum.root_signature_flags[]\n"
         "---@alias pso.flags.descriptor_range_flags pso.enum.descriptor_range_flags|"
         "pso.enum.descriptor_range_flags[]\n"
         "---@alias pso.flags.root_descriptor_flags pso.enum.root_descriptor_flags|"
         "pso.enum.root_descriptor_flags[]\n");
  out(b, "%s", rootsig_types);
  out(b, "%s", rootsig_funcs);
}

#endif
