// The code of Guides/ServingFlags.md (at the repository's root) is compiled into this program
// by the GuideCode plugin, as the function runServingFlagsGuide(). CI runs the program with
// Scripts/guide-output.py, which checks that it prints exactly what the guide shows.
try await runServingFlagsGuide()
