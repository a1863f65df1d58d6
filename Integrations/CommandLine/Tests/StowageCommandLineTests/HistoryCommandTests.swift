import Foundation
import Testing

/// The fleet commands' own refusals; reading a fleet's history and setting
/// its flags through its admin page are checked against real servers by the
/// HTTP package's Scripts/check-admin-page.sh.
struct HistoryCommandTests {
    @Test func withoutAnAddressOrATokenTheCommandsSayWhatIsMissing() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["STOWAGE_ADMIN_URL"] = nil
        environment["STOWAGE_ADMIN_TOKEN"] = nil
        let noAddress = try stowage(["flags", "history"], environment: environment)
        #expect(noAddress.status == 1 && noAddress.error.contains("name the admin page with --server or STOWAGE_ADMIN_URL"), "\(noAddress.error)")
        let noToken = try stowage(["history", "--server", "http://127.0.0.1:9/admin"], environment: environment)
        #expect(noToken.status == 1 && noToken.error.contains("set STOWAGE_ADMIN_TOKEN"), "\(noToken.error)")
        let setWithoutToken = try stowage(["flags", "set", "--server", "http://127.0.0.1:9/admin", "rate-limit", "250"], environment: environment)
        #expect(setWithoutToken.status == 1 && setWithoutToken.error.contains("set STOWAGE_ADMIN_TOKEN"), "\(setWithoutToken.error)")
        let notHTTP = try stowage(["flags", "set", "--server", "file:///etc/passwd", "rate-limit", "250"], environment: environment)
        #expect(notHTTP.status == 1 && notHTTP.error.contains("is not an http or https address"), "\(notHTTP.error)")
        environment["STOWAGE_ADMIN_TOKEN"] = "t"
        // Port 9 (discard) on the loopback interface: nothing listens there.
        let unreachable = try stowage(["history", "--server", "http://127.0.0.1:9/admin"], environment: environment)
        #expect(unreachable.status == 1 && unreachable.error.contains("could not reach http://127.0.0.1:9/admin"), "\(unreachable.error)")
        #expect(!unreachable.error.contains("STOWAGE_ADMIN_TOKEN=t"))
    }
}
