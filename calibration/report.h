// The calibration's readable report, and what `auto` would choose with the measured profile.
#ifndef KCOLL_CALIBRATION_REPORT_H_
#define KCOLL_CALIBRATION_REPORT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "base/topology.h"
#include "calibration/calibrate.h"
#include "models/machine.h"

namespace kcoll {
namespace calibration {

// The readable report: each series with its fit, alpha / beta / R^2 per link class, gamma, copy bandwidth.
std::string FormatReport(const CalibrationResult& result, const models::Profile& profile);

// What `auto` (choice/auto_choice.h) would run with this profile on the measured topology: for every
// collective with registered algorithms, the choice at each of `sizes` (count * element size).
std::string FormatAutoChoices(const Topology& topology, const models::Profile& profile,
                              const std::vector<size_t>& sizes);

}  // namespace calibration
}  // namespace kcoll

#endif  // KCOLL_CALIBRATION_REPORT_H_
