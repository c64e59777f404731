// SPDX-License-Identifier: MIT
#include "machinedescription.h"

#include "ctxscope/results_file.h"

#include <QCoreApplication>
#include <QStringList>

namespace ctxscope::gui {

QString MachineDescription::summary() const
{
    QStringList parts;
    parts << (hostName.isEmpty() || hostName == name ? name : QStringLiteral("%1 (%2)").arg(name, hostName));
    if (!cpuModel.isEmpty())
        parts << cpuModel;
    if (!kernel.isEmpty())
        parts << QStringLiteral("Linux ") + kernel;
    if (!virtualization.isEmpty())
        parts << virtualization;
    return parts.join(QStringLiteral(" · "));
}

MachineDescription describeMachine(const QString& name, const nlohmann::json& context)
{
    MachineDescription machine;
    machine.name = name;
    if (!context.is_object())
        return machine;
    const auto read = reportContextFromJson(context);
    if (!read)
        return machine;
    auto tr = [](const char* text) { return QCoreApplication::translate("MachineDescription", text); };
    machine.hostName = QString::fromStdString(read->hostName);
    machine.cpuModel = QString::fromStdString(read->cpuModel).simplified();
    machine.kernel = QString::fromStdString(read->kernel);
    // Only a context with ctxscope's sysinfo says whether a hypervisor runs the machine.
    const bool knowsSysinfo = !machine.cpuModel.isEmpty() || !machine.kernel.isEmpty();
    if (read->hypervisor)
        machine.virtualization = read->hypervisorVendor.empty()
            ? tr("virtual machine")
            : tr("%1 virtual machine").arg(QString::fromStdString(read->hypervisorVendor));
    else if (knowsSysinfo)
        machine.virtualization = tr("bare metal");
    return machine;
}

} // namespace ctxscope::gui
