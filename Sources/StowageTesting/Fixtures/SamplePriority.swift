import Stowage

/// An enum kept as its `Int` raw value, for the raw-representable round trip.
enum SamplePriority: Int, Storable, CaseIterable {
    case lowest = -9_223_372_036_854_775_808
    case low = -1
    case normal = 0
    case highest = 9_223_372_036_854_775_807
}
