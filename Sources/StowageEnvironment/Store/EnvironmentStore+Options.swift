#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension EnvironmentStore {
    /// How a store maps keys to variables, reads lists, keeps secrets and writes.
    public struct Options: Sendable {
        /// How a key becomes a variable name; `.automatic()` by default.
        public var keyMapping: KeyMapping
        /// Which variables hold secrets, never shown in descriptions, dumps or errors.
        public var secrets: Secrets
        /// What separates the elements of an array or set written as a list (`a,b,c`).
        public var arraySeparator: Character
        /// Whether writes also change the process environment with `setenv`.
        ///
        /// Off by default, and best left off: `setenv` is not safe while any
        /// other thread reads the environment (`getenv`, or a library that
        /// calls it, such as a DNS lookup or the time zone code), and on glibc
        /// such a race can crash the process. Turn it on only when something
        /// must read the variables through `getenv` and no other thread runs
        /// yet. To launch a child process with the store's values, use
        /// ``EnvironmentStore/environmentForChildProcess()`` instead.
        public var mirrorsWritesToProcessEnvironment: Bool

        public init(
            keyMapping: KeyMapping = .automatic(),
            secrets: Secrets = .default,
            arraySeparator: Character = ",",
            mirrorsWritesToProcessEnvironment: Bool = false
        ) {
            self.keyMapping = keyMapping
            self.secrets = secrets
            self.arraySeparator = arraySeparator
            self.mirrorsWritesToProcessEnvironment = mirrorsWritesToProcessEnvironment
        }
    }

    /// A `.env` file read beneath the environment.
    public struct DotEnvFile: Sendable {
        /// Where the file is.
        public var url: URL
        /// Whether a missing file is an error; by default it reads as empty.
        public var isRequired: Bool
        /// Whether the file's values win over variables of the same name in
        /// the environment; by default the environment wins, so a deployment
        /// can override what a checked-in `.env` file says.
        public var overridesEnvironment: Bool
        /// Whether a line that is not an assignment (`KEY: value`, a name
        /// without `=`, a quoted name) is skipped, as other dotenv tools do,
        /// rather than failing the whole file. Each skipped line is reported
        /// through `StowageReport.handler` with its line number. By
        /// default such a line is an error: a typo should not hide a setting.
        public var skipsMalformedLines: Bool

        public init(url: URL, isRequired: Bool = false, overridesEnvironment: Bool = false, skipsMalformedLines: Bool = false) {
            self.url = url
            self.isRequired = isRequired
            self.overridesEnvironment = overridesEnvironment
            self.skipsMalformedLines = skipsMalformedLines
        }
    }
}
