// `import StowageFlags` is all a user writes: it brings the core and the
// stores a pole keeps overrides and remote values in by default.
@_exported public import Stowage
@_exported public import StowageInMemory
@_exported public import StowageJSONFile
