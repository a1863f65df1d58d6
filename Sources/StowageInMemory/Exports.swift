// `import StowageInMemory` is all a user writes.
@_exported public import Stowage
