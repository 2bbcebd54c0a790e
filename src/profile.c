/*
** profile.c: capability profiles, the device features that
** capability-dependent checks assume. Data only: one row per preset.
**
** psoc_check without a profile holds nothing to a capability (it uses the
** unlisted 'unlimited' row below). The profile named "default" is
** conservative: what every feature level 12_0 desktop
** device supports, so a pipeline that passes against it is created on any
** D3D12 device of that level. Optional features (depth bounds, independent
** stencil masks, conservative rasterization, view instancing, mesh shaders,
** dynamic depth bias, ...) are off there and on in the richer presets.
*/
#include <strings.h>

#include "rules_internal.h"

static const psoc_profile profiles[] = {
  /* name, description, feature level, shader model, conservative tier,
     view instancing tier, mesh tier, max samples, nodes, logic op, depth
     bounds, independent stencil masks, dynamic depth bias, dynamic strip
     cut, narrow quad lines, forced sample count 16 */
  { "desktop_fl11_0", "feature level 11_0, shader model 5.1, no optional features",
    0xb000, 0x51, 0, 0, 0, 8, 1, 0, 0, 0, 0, 0, 0, 0 },
  { "desktop_fl12_0", "feature level 12_0, shader model 6.0, no optional features (= 'default')",
    0xc000, 0x60, 0, 0, 0, 8, 1, 1, 0, 0, 0, 0, 0, 0 },
  { "desktop_fl12_1", "feature level 12_1 (conservative rasterization tier 1, ROVs), shader "
    "model 6.2, view instancing tier 1",
    0xc100, 0x62, 1, 1, 0, 8, 1, 1, 0, 0, 0, 0, 0, 0 },
  { "desktop_fl12_2", "feature level 12_2 (DirectX 12 Ultimate): shader model 6.5, mesh "
    "shaders, conservative rasterization tier 3, depth bounds test",
    0xc200, 0x65, 3, 2, 1, 8, 1, 1, 1, 0, 0, 0, 0, 1 },
  { "desktop_sm6_6", "feature level 12_2 with shader model 6.6, view instancing tier 3",
    0xc200, 0x66, 3, 3, 1, 8, 1, 1, 1, 0, 0, 0, 0, 1 },
  { "desktop_agility", "a current Agility SDK desktop driver: shader model 6.8, independent "
    "stencil masks, dynamic depth bias and strip cut, narrow lines",
    0xc200, 0x68, 3, 3, 1, 8, 1, 1, 1, 1, 1, 1, 1, 1 },
  { "max", "every capability psoc knows of, for checking the stream alone",
    0xc200, 0x69, 3, 3, 1, 32, 32, 1, 1, 1, 1, 1, 1, 1 },
};

#define PROFILE_COUNT (sizeof profiles / sizeof profiles[0])

/* Not listed: what psoc_check uses for a NULL profile (the runtime's rules
** alone). Every tier at its top, so no capability rule fires. */
const psoc_profile psoc_profile_unlimited_ = {
  "none", "no profile: the runtime's rules alone, no capability checks",
  0xc200, 0xff, 3, 3, 1, 32, 32, 1, 1, 1, 1, 1, 1, 1
};

const psoc_profile *psoc_profile_default(void) { return &profiles[1]; }

size_t psoc_profile_count(void) { return PROFILE_COUNT; }

const psoc_profile *psoc_profile_at(size_t index) {
  return index < PROFILE_COUNT ? &profiles[index] : NULL;
}

const psoc_profile *psoc_profile_find(const char *name) {
  size_t i;
  if (!name) return NULL;
  if (strcasecmp(name, "default") == 0) return psoc_profile_default();
  for (i = 0; i < PROFILE_COUNT; i++)
    if (strcasecmp(profiles[i].name, name) == 0) return &profiles[i];
  return NULL;
}
