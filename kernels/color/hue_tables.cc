// The hue table (hue_tables.h), made with the scalar row's rgb2hsv_row on
// a pixel of each case: max 255, min 255 - cr, mid 255 - d.
#include "kernels/color/hue_tables.h"

#include "kernels/color/scalar_color.h"

namespace fusednorm {
namespace {

int Triangle(int a, int b) { return a * (a + 1) / 2 + b; }

// A pixel of case k with range cr and mid distance d.
void CasePixel(int k, int cr, int d, uint8_t* rgb) {
  const uint8_t max = 255, min = static_cast<uint8_t>(255 - cr),
                mid = static_cast<uint8_t>(255 - d);
  // Channel indices (max, min, mid) per case.
  static constexpr int kRoles[6][3] = {{0, 2, 1}, {0, 1, 2}, {1, 2, 0},
                                       {1, 0, 2}, {2, 0, 1}, {2, 1, 0}};
  rgb[kRoles[k][0]] = max;
  rgb[kRoles[k][1]] = min;
  rgb[kRoles[k][2]] = mid;
}

HueTables* Make() {
  auto* t = new HueTables();
  for (int k = 0; k < 6; ++k) {
    for (int cr = 0; cr < 256; ++cr) {
      for (int d = 0; d <= cr; ++d) {
        uint8_t rgb[3], hsv[3];
        CasePixel(k, cr, d, rgb);
        ScalarRgbToHsv(rgb, hsv);
        t->hue[k * kHueTriangle + Triangle(cr, d)] = hsv[0];
      }
    }
  }
  return t;
}

}  // namespace

const HueTables& GetHueTables() {
  static const HueTables* tables = Make();
  return *tables;
}

}  // namespace fusednorm
