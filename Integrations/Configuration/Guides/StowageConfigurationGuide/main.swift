// The code of Guides/Configuration.md (at the repository's root) is compiled
// into this target by the GuideCode plugin; this file only gives the target
// a source of its own.

/// Keeps the generated function in use, so the compiler checks it as any other code.
public func guideCode() async throws {
    try await runConfigurationGuide()
}
