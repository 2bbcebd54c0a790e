/*
** formats.c: what each DXGI format can do, as data. The capabilities are
** the ones D3D12 requires of every device (the "required" columns of the
** DXGI format support tables for feature level 11_0 and up); optional
** support is marked so checks can warn instead of failing.
*/
#include "rules_internal.h"

/* comps, bytes per element, bytes per component (vertex alignment),
** component type (D3D_REGISTER_COMPONENT_TYPE), flags */
#define F(fmt, c, b, cb, t, fl) [fmt] = { c, b, cb, t, fl, 1 }

enum { T0 = PSOC_COMP_UNKNOWN, TU = PSOC_COMP_UINT, TS = PSOC_COMP_SINT, TF = PSOC_COMP_FLOAT };
enum {
  RT = PSOC_FMT_RT, BL = PSOC_FMT_BLEND, VX = PSOC_FMT_VERTEX, DP = PSOC_FMT_DEPTH,
  ST = PSOC_FMT_STENCIL, TL = PSOC_FMT_TYPELESS, LO = PSOC_FMT_LOGIC_OP, OPT = PSOC_FMT_RT_OPTIONAL,
  CMP = PSOC_FMT_COMPRESSED, VID = PSOC_FMT_VIDEO
};

#define RTB (RT | BL)             /* blendable render target */
#define RTU (RT | LO)             /* integer render target: logic ops, no blend */

const psoc_format_info psoc_formats[PSOC_FORMAT_TABLE_SIZE] = {
  F(1, 4, 16, 4, T0, TL),          /* R32G32B32A32_TYPELESS */
  F(2, 4, 16, 4, TF, RTB | VX),    /* R32G32B32A32_FLOAT */
  F(3, 4, 16, 4, TU, RTU | VX),    /* R32G32B32A32_UINT */
  F(4, 4, 16, 4, TS, RT | VX),     /* R32G32B32A32_SINT */
  F(5, 3, 12, 4, T0, TL),          /* R32G32B32_TYPELESS */
  F(6, 3, 12, 4, TF, OPT | BL | VX), /* R32G32B32_FLOAT: render target optional */
  F(7, 3, 12, 4, TU, OPT | LO | VX),
  F(8, 3, 12, 4, TS, OPT | VX),
  F(9, 4, 8, 2, T0, TL),           /* R16G16B16A16_TYPELESS */
  F(10, 4, 8, 2, TF, RTB | VX),
  F(11, 4, 8, 2, TF, RTB | VX),    /* UNORM */
  F(12, 4, 8, 2, TU, RTU | VX),
  F(13, 4, 8, 2, TF, RTB | VX),    /* SNORM */
  F(14, 4, 8, 2, TS, RT | VX),
  F(15, 2, 8, 4, T0, TL),          /* R32G32_TYPELESS */
  F(16, 2, 8, 4, TF, RTB | VX),
  F(17, 2, 8, 4, TU, RTU | VX),
  F(18, 2, 8, 4, TS, RT | VX),
  F(19, 2, 8, 4, T0, TL),          /* R32G8X24_TYPELESS */
  F(20, 2, 8, 4, TF, DP | ST),     /* D32_FLOAT_S8X24_UINT */
  F(21, 1, 8, 4, TF, 0),           /* R32_FLOAT_X8X24_TYPELESS (SRV only) */
  F(22, 1, 8, 4, TU, 0),           /* X32_TYPELESS_G8X24_UINT (SRV only) */
  F(23, 4, 4, 4, T0, TL),          /* R10G10B10A2_TYPELESS */
  F(24, 4, 4, 4, TF, RTB | VX),    /* R10G10B10A2_UNORM */
  F(25, 4, 4, 4, TU, RTU | VX),    /* R10G10B10A2_UINT */
  F(26, 3, 4, 4, TF, RTB | VX),    /* R11G11B10_FLOAT */
  F(27, 4, 4, 1, T0, TL),          /* R8G8B8A8_TYPELESS */
  F(28, 4, 4, 1, TF, RTB | VX),    /* UNORM */
  F(29, 4, 4, 1, TF, RTB),         /* UNORM_SRGB */
  F(30, 4, 4, 1, TU, RTU | VX),
  F(31, 4, 4, 1, TF, RTB | VX),    /* SNORM */
  F(32, 4, 4, 1, TS, RT | VX),
  F(33, 2, 4, 2, T0, TL),          /* R16G16_TYPELESS */
  F(34, 2, 4, 2, TF, RTB | VX),
  F(35, 2, 4, 2, TF, RTB | VX),
  F(36, 2, 4, 2, TU, RTU | VX),
  F(37, 2, 4, 2, TF, RTB | VX),
  F(38, 2, 4, 2, TS, RT | VX),
  F(39, 1, 4, 4, T0, TL),          /* R32_TYPELESS */
  F(40, 1, 4, 4, TF, DP),          /* D32_FLOAT */
  F(41, 1, 4, 4, TF, RTB | VX),    /* R32_FLOAT */
  F(42, 1, 4, 4, TU, RTU | VX),
  F(43, 1, 4, 4, TS, RT | VX),
  F(44, 2, 4, 4, T0, TL),          /* R24G8_TYPELESS */
  F(45, 2, 4, 4, TF, DP | ST),     /* D24_UNORM_S8_UINT */
  F(46, 1, 4, 4, TF, 0),           /* R24_UNORM_X8_TYPELESS (SRV only) */
  F(47, 1, 4, 4, TU, 0),           /* X24_TYPELESS_G8_UINT (SRV only) */
  F(48, 2, 2, 1, T0, TL),          /* R8G8_TYPELESS */
  F(49, 2, 2, 1, TF, RTB | VX),
  F(50, 2, 2, 1, TU, RTU | VX),
  F(51, 2, 2, 1, TF, RTB | VX),
  F(52, 2, 2, 1, TS, RT | VX),
  F(53, 1, 2, 2, T0, TL),          /* R16_TYPELESS */
  F(54, 1, 2, 2, TF, RTB | VX),    /* R16_FLOAT */
  F(55, 1, 2, 2, TF, DP),          /* D16_UNORM */
  F(56, 1, 2, 2, TF, RTB | VX),    /* R16_UNORM */
  F(57, 1, 2, 2, TU, RTU | VX),
  F(58, 1, 2, 2, TF, RTB | VX),
  F(59, 1, 2, 2, TS, RT | VX),
  F(60, 1, 1, 1, T0, TL),          /* R8_TYPELESS */
  F(61, 1, 1, 1, TF, RTB | VX),
  F(62, 1, 1, 1, TU, RTU | VX),
  F(63, 1, 1, 1, TF, RTB | VX),
  F(64, 1, 1, 1, TS, RT | VX),
  F(65, 1, 1, 1, TF, RTB),         /* A8_UNORM */
  F(66, 1, 0, 0, TF, 0),           /* R1_UNORM */
  F(67, 3, 4, 4, TF, 0),           /* R9G9B9E5_SHAREDEXP */
  F(68, 4, 4, 1, TF, 0),           /* R8G8_B8G8_UNORM */
  F(69, 4, 4, 1, TF, 0),           /* G8R8_G8B8_UNORM */
  F(70, 4, 0, 0, T0, TL | CMP),    /* BC1_TYPELESS */
  F(71, 4, 0, 0, TF, CMP), F(72, 4, 0, 0, TF, CMP),
  F(73, 4, 0, 0, T0, TL | CMP), F(74, 4, 0, 0, TF, CMP), F(75, 4, 0, 0, TF, CMP),
  F(76, 4, 0, 0, T0, TL | CMP), F(77, 4, 0, 0, TF, CMP), F(78, 4, 0, 0, TF, CMP),
  F(79, 1, 0, 0, T0, TL | CMP), F(80, 1, 0, 0, TF, CMP), F(81, 1, 0, 0, TF, CMP),
  F(82, 2, 0, 0, T0, TL | CMP), F(83, 2, 0, 0, TF, CMP), F(84, 2, 0, 0, TF, CMP),
  F(85, 3, 2, 2, TF, RTB),         /* B5G6R5_UNORM */
  F(86, 4, 2, 2, TF, RTB),         /* B5G5R5A1_UNORM */
  F(87, 4, 4, 1, TF, RTB | VX),    /* B8G8R8A8_UNORM */
  F(88, 4, 4, 1, TF, RTB),         /* B8G8R8X8_UNORM */
  F(89, 4, 4, 4, TF, RTB),         /* R10G10B10_XR_BIAS_A2_UNORM */
  F(90, 4, 4, 1, T0, TL),          /* B8G8R8A8_TYPELESS */
  F(91, 4, 4, 1, TF, RTB),         /* B8G8R8A8_UNORM_SRGB */
  F(92, 4, 4, 1, T0, TL),          /* B8G8R8X8_TYPELESS */
  F(93, 4, 4, 1, TF, RTB),         /* B8G8R8X8_UNORM_SRGB */
  F(94, 3, 0, 0, T0, TL | CMP), F(95, 3, 0, 0, TF, CMP), F(96, 3, 0, 0, TF, CMP),
  F(97, 4, 0, 0, T0, TL | CMP), F(98, 4, 0, 0, TF, CMP), F(99, 4, 0, 0, TF, CMP),
  F(100, 4, 0, 0, TF, VID), F(101, 4, 0, 0, TF, VID), F(102, 4, 0, 0, TF, VID),
  F(103, 3, 0, 0, TF, VID), F(104, 3, 0, 0, TF, VID), F(105, 3, 0, 0, TF, VID),
  F(106, 3, 0, 0, TF, VID), F(107, 4, 0, 0, TF, VID), F(108, 4, 0, 0, TF, VID),
  F(109, 4, 0, 0, TF, VID), F(110, 3, 0, 0, TF, VID), F(111, 4, 0, 0, TF, VID),
  F(112, 4, 0, 0, TF, VID), F(113, 1, 0, 0, TF, VID), F(114, 2, 0, 0, TF, VID),
  F(115, 4, 2, 2, TF, RTB),        /* B4G4R4A4_UNORM */
  F(130, 3, 0, 0, TF, VID), F(131, 3, 0, 0, TF, VID), F(132, 3, 0, 0, TF, VID),
  F(189, 1, 0, 0, T0, VID), F(190, 1, 0, 0, T0, VID),
  F(191, 4, 2, 2, TF, RTB),        /* A4B4G4R4_UNORM (newer SDKs) */
};

const char *psoc_format_name(uint32_t format) {
  const psoc_enum_value *v = psoc_enum_value_by_value(&psoc_enum_dxgi_format, format);
  if (v) return v->name;
  return format == 191 ? "DXGI_FORMAT_A4B4G4R4_UNORM" : "an unknown DXGI_FORMAT";
}

const char *psoc_comp_type_name(uint32_t type) {
  switch (type) {
  case PSOC_COMP_UINT: return "uint";
  case PSOC_COMP_SINT: return "int";
  case PSOC_COMP_FLOAT: return "float";
  default: return "unknown";
  }
}
