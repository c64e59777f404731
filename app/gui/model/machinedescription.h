// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json.hpp>

#include <QString>

namespace ctxscope::gui {

// What the window title and the status bar say of the machine runs go to: its name as the
// user gave it (`lab-3`, or "this machine"), then what its worker's hello reports.
struct MachineDescription {
    QString name;
    QString hostName; // the host name the worker reports; "" until it said hello
    QString cpuModel;
    QString kernel; // uname -r
    QString virtualization; // "KVM virtual machine", "virtual machine" or "bare metal"; "" when unknown

    // "lab-3 (srv1) · AMD EPYC 7B13 · Linux 6.1.0-18-amd64 · KVM virtual machine"; the parts
    // not known are left out, so a machine whose worker has not answered is just its name.
    QString summary() const;
};

// `name` with the facts of a worker's context block (the results file's "context"); a null
// or unreadable block gives the name alone.
MachineDescription describeMachine(const QString& name, const nlohmann::json& context);

} // namespace ctxscope::gui
