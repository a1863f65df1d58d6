import ArgumentParser

/// Whether values of secret keys are shown.
struct ShowSecretsOption: ParsableArguments {
    @ArgumentParser.Flag(help: "Show the values of keys that look secret (PASSWORD, SECRET, TOKEN, KEY, CREDENTIAL, PRIVATE), which are <redacted> otherwise.")
    var showSecrets = false
}
