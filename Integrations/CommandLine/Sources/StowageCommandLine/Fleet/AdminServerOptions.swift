import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StowageFlags
import StowageJSON

/// Where a fleet's admin page is: `--server`, or STOWAGE_ADMIN_URL.
struct AdminServerOptions: ParsableArguments {
    @Option(help: "The admin page's address, such as https://flags.example.com/admin (or STOWAGE_ADMIN_URL).")
    var server: String?

    var adminServer: AdminServer {
        get throws {
            guard let address = server ?? ProcessInfo.processInfo.environment["STOWAGE_ADMIN_URL"] else {
                throw CommandFailure("name the admin page with --server or STOWAGE_ADMIN_URL, such as https://flags.example.com/admin.")
            }
            return AdminServer(address: address)
        }
    }
}

/// A fleet's admin page, asked for JSON with the token from STOWAGE_ADMIN_TOKEN:
/// read from the environment only, so it never shows in a process list or a shell's history.
struct AdminServer {
    let address: String

    func get(_ path: String, query: [URLQueryItem]) async throws -> StoredValue {
        try await request("GET", path, query: query, body: nil)
    }

    func post(_ path: String, _ body: StoredValue) async throws -> StoredValue {
        try await request("POST", path, query: [], body: Data(body.jsonText.utf8))
    }

    private func request(_ method: String, _ path: String, query: [URLQueryItem], body: Data?) async throws -> StoredValue {
        guard var components = URLComponents(string: address), components.scheme == "http" || components.scheme == "https" else {
            throw CommandFailure("\(address) is not an http or https address.")
        }
        guard let token = ProcessInfo.processInfo.environment["STOWAGE_ADMIN_TOKEN"], !token.isEmpty else {
            throw CommandFailure("set STOWAGE_ADMIN_TOKEN to a token the admin page accepts (AdminUsers.addToken).")
        }
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + path
        components.queryItems = query.isEmpty ? nil : query
        guard let url = components.url else { throw CommandFailure("\(address) is not an address.") }
        var request = URLRequest(url: url, timeoutInterval: 30)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        let (data, response): (Data, URLResponse)
        do { (data, response) = try await URLSession.shared.data(for: request) } catch {
            throw CommandFailure("could not reach \(address): \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let answer = try? StoredValue(jsonText: String(decoding: data, as: UTF8.self))
        guard status == 200, let answer else {
            if case .dictionary(let members)? = answer, case .string(let message)? = members["error"] {
                throw CommandFailure("\(address) answered \(status): \(message)")
            }
            throw CommandFailure("\(address) answered \(status), not the admin page's JSON: is it the admin page's address?")
        }
        return answer
    }

    /// `key` as one segment of a path.
    static func pathSegment(_ key: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return key.addingPercentEncoding(withAllowedCharacters: allowed) ?? key
    }
}
