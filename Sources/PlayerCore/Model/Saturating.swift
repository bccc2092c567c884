extension FixedWidthInteger {
    /// `Self(value)` without its trap: NaN becomes 0 and a value beyond the type's range becomes the nearest bound;
    /// otherwise it rounds toward zero as `init(_:)` does. For numbers that come from outside — clients, tags, the
    /// network — on their way into an integer, where a trap would take the whole server down.
    @inlinable
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value <= Double(Self.min) {
            self = .min
        } else if value >= Double(Self.max) {
            self = .max
        } else {
            self = Self(value)
        }
    }
}
