/*
 * This program is free software; you can redistribute it and/or modify
 * it under the terms of the GNU General Public License version 2 as
 * published by the Free Software Foundation;
 *
 * This program is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
 * GNU General Public License for more details.
 *
 * You should have received a copy of the GNU General Public License
 * along with this program; if not, write to the Free Software
 * Foundation, Inc., 59 Temple Place, Suite 330, Boston, MA  02111-1307  USA
 */

// A minimal packet-level program (doc/crux.rst includes it): one BERT-large job on the §2.2
// fabric (2 ToRs x 6 hosts, one 100 Gbit/s NIC per host), at priority level 3, tracked for GPU
// utilization.

#include "ns3/core-module.h"
#include "ns3/crux-module.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    CheckedCommandLine cmd(__FILE__); // ns-3's CommandLine; a bad value: one line, exit 1
    try
    {
        cmd.Parse(argc, argv);

        ClosConfig cfg = TestbedClosConfig(); // 8 GPUs per host, 1 us links
        cfg.tors = 2;
        cfg.aggs = 2;
        cfg.hostsPerTor = 6;
        cfg.nicsPerHost = 1;
        cfg.hostLinkBps = 100e9;
        cfg.torAggBps = 100e9;
        CruxTopologyHelper topoHelper;
        topoHelper.SetMmuAttribute("PfcEnabled", BooleanValue(true));
        Ptr<CruxTopology> topo = topoHelper.Install(BuildTwoLayerClos(cfg));
        Ptr<RdmaTransport> transport = RdmaTransportHelper().Install(topo);

        std::vector<GpuId> gpus;
        for (uint32_t host : {4, 5, 10, 11})
        {
            for (uint32_t g = 0; g < 4; ++g)
            {
                gpus.push_back(GpuId{host, g});
            }
        }
        DltJob job = DltJob::FromModel(1, "bert-large", gpus);
        job.iterations = 5;
        job.dscp = CruxHelper::DscpOfLevel(3); // priority level 3 -> traffic class 3
        Ptr<DltJobApplication> app = DltJobHelper().Install(job, transport, topo->GetHost(4).node);

        Ptr<GpuIntensityTracker> tracker = CreateObject<GpuIntensityTracker>();
        tracker->RegisterJob(job.id, job.flopsPerIteration, job.NumGpus(), job.computeTime);
        app->TraceConnectWithoutContext(
            "IterationComplete",
            MakeCallback(&GpuIntensityTracker::NotifyIterationComplete, tracker));

        Simulator::Run(); // a watchdog's CruxRunError leaves it: caught below
        // the events ran out: a job still in an iteration can never finish
        const auto stuck = DltJobApplication::DescribeStuck({app}, Time::Max());
        if (!stuck.empty())
        {
            throw CruxRunError(stuck);
        }
        std::cout << "JCT " << app->GetJct().GetSeconds() << " s, utilization "
                  << tracker->GetUtilization(Seconds(0), app->GetJct()) << std::endl;
        Simulator::Destroy();
    }
    catch (const std::exception& e) // bad input (InputError), a run error (CruxRunError)
    {
        std::cerr << CruxRunError::Format("crux-minimal", e);
        return 1;
    }
    return 0;
}
