// The code of Guides/PostgresStore.md (at the repository's root) is compiled
// into this target by the GuideCode plugin; this file only gives the target a
// source of its own. The guide's code runs nowhere: it needs a server.

/// Keeps the generated function in use, so the compiler checks it as any other code.
public func guideCode() async throws {
    try await runGuideCode()
}
