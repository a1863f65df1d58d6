// `import StowageUserDefaults` is all a user writes.
@_exported public import Stowage
