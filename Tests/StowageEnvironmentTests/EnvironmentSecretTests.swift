import StowageEnvironment
import StowageTestSupport
import Testing

/// A secret's value never shows, through any output.
@Suite(.serialized)
struct EnvironmentSecretTests {
    static let secretValue = "hunter2-s3cr3t-value"

    private func store(secrets: EnvironmentStore.Secrets = .default) -> EnvironmentStore {
        EnvironmentStore(
            variables: ["DATABASE_PASSWORD": Self.secretValue, "API_TOKEN": Self.secretValue, "VAULT_ADDR": Self.secretValue, "PORT": "8080"],
            options: .init(secrets: secrets)
        )
    }

    @Test func descriptionsAndDumpsRedactSecrets() throws {
        var secrets = EnvironmentStore.Secrets.default
        secrets.predicate = { $0.hasPrefix("VAULT_") }
        let store = store(secrets: secrets)
        try store.set(Self.secretValue + "-written", forKey: "signing.privateKey")
        var dumped = ""
        dump(store, to: &dumped)
        for output in [store.description, store.debugDescription, dumped, String(describing: store), String(reflecting: store)] {
            #expect(!output.contains(Self.secretValue), "\(output)")
        }
        #expect(store.debugDescription.contains("PORT=8080"), "non-secret values are shown")
        #expect(store.debugDescription.contains("DATABASE_PASSWORD=\(EnvironmentStore.redactedText)"))
        #expect(dumped.contains("PORT"))
    }

    @Test func secretsCanBeNamedByKeyAndNothingIsSecretWhenToldSo() throws {
        let named = EnvironmentStore(variables: ["DSN": Self.secretValue], options: .init(secrets: .init(keys: ["database.dsn"])))
        _ = try named.value(forKey: "dsn", as: String.self)
        #expect(named.isSecret(key: "database.dsn"))
        #expect(!named.isSecret(key: "port"))
        // A key marked secret hides its variable even before the store has used the key.
        let unused = EnvironmentStore(variables: ["DSN": Self.secretValue], options: .init(secrets: .init(keys: ["dsn"])))
        #expect(!unused.debugDescription.contains(Self.secretValue))
        let none = store(secrets: .none)
        #expect(none.debugDescription.contains(Self.secretValue))
    }

    @Test func errorsAndTheReportingHookNeverQuoteASecret() throws {
        let store = store()
        // One collector for the whole test process: a handler of this test's
        // own would take other suites' reports while it is installed.
        ReportedErrors.install()

        struct Settings {
            @EnvironmentStorage var token: Int
            init(store: EnvironmentStore) {
                _token = EnvironmentStorage(wrappedValue: 0, "apiToken", in: store)
            }
        }
        #expect(Settings(store: store).token == 0, "an unreadable value yields the default")
        var thrown: StorageError?
        do { _ = try store.value(forKey: "database.password", as: Int.self) } catch let error as StorageError { thrown = error }
        let messages = ReportedErrors.forKey("apiToken").map { "\($0)" } + [thrown.map { "\($0)" } ?? "", store.lastError.map { "\($0)" } ?? ""]
        #expect(messages.count >= 3)
        #expect(thrown?.message.contains("DATABASE_PASSWORD") == true)
        #expect(thrown?.message.contains("secret") == true)
        for message in messages {
            #expect(!message.contains(Self.secretValue), "\(message)")
        }
        #expect(ReportedErrors.forKey("apiToken").contains { "\($0)".contains("API_TOKEN") }, "the wrapper's failure reaches the hook")
    }
}
