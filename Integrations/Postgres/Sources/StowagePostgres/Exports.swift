// `import StowagePostgres` is all a user writes: the store, Stowage's API,
// and postgres-nio's configuration types.
@_exported public import Stowage
@_exported public import PostgresNIO
