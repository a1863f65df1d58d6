import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StowageFlags
import StowageJSON

/// Where a fleet's admin page is, and the token the tool signs in with:
/// read from STOWAGE_ADMIN_TOKEN only, so it never shows in a process list
/// or a shell's history.
struct AdminServerOptions: ParsableArguments {
    @Option(help: "The admin page's address, such as https://flags.example.com/admin (or STOWAGE_ADMIN_URL).")
    var server: String?

    /// The JSON the admin page answers `path` (under its address) with.
    func get(_ path: String, query: [URLQueryItem]) async throws -> StoredValue {
        let environment = ProcessInfo.processInfo.environment
        guard let address = server ?? environment["STOWAGE_ADMIN_URL"], var components = URLComponents(string: address) else {
            throw CommandFailure("name the admin page with --server or STOWAGE_ADMIN_URL, such as https://flags.example.com/admin.")
        }
        guard let token = environment["STOWAGE_ADMIN_TOKEN"], !token.isEmpty else {
            throw CommandFailure("set STOWAGE_ADMIN_TOKEN to a token the admin page accepts (AdminUsers.addToken).")
        }
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + path
        components.queryItems = query.isEmpty ? nil : query
        guard let url = components.url else { throw CommandFailure("\(address) is not an address.") }
        var request = URLRequest(url: url, timeoutInterval: 30)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response): (Data, URLResponse)
        do { (data, response) = try await URLSession.shared.data(for: request) } catch {
            throw CommandFailure("could not reach \(address): \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let body = try? StoredValue(jsonText: String(decoding: data, as: UTF8.self))
        guard status == 200, let body else {
            if case .dictionary(let members)? = body, case .string(let message)? = members["error"] {
                throw CommandFailure("\(address) answered \(status): \(message)")
            }
            throw CommandFailure("\(address) answered \(status), not the admin page's JSON: is it the admin page's address?")
        }
        return body
    }
}
