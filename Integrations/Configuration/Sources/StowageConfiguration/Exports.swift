// `import StowageConfiguration` is all a user writes: the bridge, Stowage's
// API and swift-configuration's types.
@_exported public import Configuration
@_exported public import Stowage
