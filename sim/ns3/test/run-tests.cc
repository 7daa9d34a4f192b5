/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Runs the ns-3 TestSuites of emusim (ns-3's test.py is not part of the pip wheel):
 *   emusim-ns3-tests --verbose [--suite=NAME] [--list]
 */

#include "ns3/test.h"

int
main(int argc, char* argv[])
{
    return ns3::TestRunner::Run(argc, argv);
}
