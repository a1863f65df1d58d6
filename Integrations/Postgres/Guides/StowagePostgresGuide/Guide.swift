// The code of Guides/PostgresStore.md and Guides/Fleet.md (at the
// repository's root) is compiled into this target by the GuideCode plugin;
// this file only gives the target a source of its own. The guides' code runs
// nowhere: it needs a server.

/// Keeps the generated functions in use, so the compiler checks them as any other code.
public func guideCode() async throws {
    try await runPostgresStoreGuide()
    try await runFleetGuide()
}
