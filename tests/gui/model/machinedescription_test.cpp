// SPDX-License-Identifier: MIT
// What the window title and the status bar say of a machine: the name the user gave it, then
// the host name, CPU, kernel and hypervisor (or bare metal) from its worker's hello.
#include "machinedescription.h"

#include <gtest/gtest.h>

using namespace ctxscope::gui;
using nlohmann::json;

namespace {

json contextOf(const char* host, bool hypervisor, const char* vendor)
{
    return json { { "host_name", host },
        { "ctxscope",
            { { "sysinfo",
                { { "cpu_model", "AMD  EPYC 7B13 " }, { "kernel", "6.1.0-18-amd64" }, { "hypervisor", hypervisor },
                    { "hypervisor_vendor", vendor } } } } } };
}

} // namespace

TEST(MachineDescription, NamesTheMachineAsTheUserDidThenWhatItsWorkerSays)
{
    const MachineDescription vm = describeMachine(QStringLiteral("lab-3"), contextOf("srv1", true, "KVM"));
    EXPECT_EQ(vm.summary().toStdString(), "lab-3 (srv1) · AMD EPYC 7B13 · Linux 6.1.0-18-amd64 · KVM virtual machine");
    const MachineDescription metal = describeMachine(QStringLiteral("srv1"), contextOf("srv1", false, ""));
    EXPECT_EQ(metal.summary().toStdString(), "srv1 · AMD EPYC 7B13 · Linux 6.1.0-18-amd64 · bare metal");
    const MachineDescription unnamedVm = describeMachine(QStringLiteral("lab-3"), contextOf("srv1", true, ""));
    EXPECT_EQ(unnamedVm.virtualization.toStdString(), "virtual machine");
}

TEST(MachineDescription, AMachineWhoseWorkerHasNotAnsweredIsItsNameAlone)
{
    EXPECT_EQ(describeMachine(QStringLiteral("lab-3"), json()).summary().toStdString(), "lab-3");
    // A context without ctxscope's sysinfo (another tool's file) claims no bare metal.
    EXPECT_EQ(describeMachine(QStringLiteral("lab-3"), json { { "host_name", "srv1" } }).summary().toStdString(),
        "lab-3 (srv1)");
    EXPECT_EQ(describeMachine(QStringLiteral("lab-3"), json { { "host_name", 42 } }).summary().toStdString(), "lab-3");
}
