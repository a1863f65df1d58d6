// The code of Guides/ServingFlags.md and Guides/RunningFleetFlags.md (at the repository's root) is
// compiled into this program by the GuideCode plugin, as the functions runServingFlagsGuide() and
// runRunningFleetFlagsGuide(). CI runs the program with Scripts/guide-output.py, which checks that
// it prints exactly what ServingFlags.md shows. RunningFleetFlags.md's code needs a fleet's
// database and runs a server until SIGTERM, so its function only defines that code: it is
// compiled, not run (the browser test runs the same setup in Tests/StowageHTTPFleetServer).
try await runRunningFleetFlagsGuide()
try await runServingFlagsGuide()
