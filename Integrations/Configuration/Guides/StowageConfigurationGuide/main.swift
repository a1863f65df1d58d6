// The code of Guides/Configuration.md (at the repository's root) is compiled into this
// program by the GuideCode plugin, as the function runConfigurationGuide(). CI runs the
// program with Scripts/guide-output.py, which checks that it prints exactly
// what the guide shows (Guides/Development.md, "How a guide shows output").
try await runConfigurationGuide()
