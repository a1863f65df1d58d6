import Foundation

/// One group's results as a Markdown table, each subject beside its baseline.
public struct ResultTable: Sendable {
    public struct Row: Sendable {
        public var name: String
        public var p50: String
        public var p90 = "—"
        public var p99 = "—"
        public var opsPerSecond: Double?
        /// Against the group's baseline, as the table's `ratioHeading` says; "baseline" on the baseline's row.
        public var ratio: String
        /// How many measurements the row's figures come from (the latency layout's column).
        public var samples: Int?
        /// The worst measurement (the latency layout's column).
        public var maximum = "—"

        public init(
            name: String, p50: String, p90: String = "—", p99: String = "—", opsPerSecond: Double? = nil, ratio: String,
            samples: Int? = nil, maximum: String = "—"
        ) {
            self.name = name
            self.p50 = p50
            self.p90 = p90
            self.p99 = p99
            self.opsPerSecond = opsPerSecond
            self.ratio = ratio
            self.samples = samples
            self.maximum = maximum
        }
    }

    /// Which columns the table has.
    public enum Layout: Sendable {
        /// p50, p90, p99 and operations per second: for loops the benchmark drives as fast as it can.
        case throughput
        /// Sample count, p50, p90, p99 and maximum: for events that come at a set pace,
        /// where a rate would only repeat the pace and the worst case matters.
        case latency
    }

    public var title: String
    /// What the ratio column divides, e.g. "p50 / baseline p50".
    public var ratioHeading: String
    public var layout = Layout.throughput
    public var rows: [Row] = []
    /// Lines printed under the table: counts, checks passed, what to read into the figures.
    public var notes: [String] = []

    public init(title: String, ratioHeading: String, layout: Layout = .throughput, rows: [Row] = []) {
        self.title = title
        self.ratioHeading = ratioHeading
        self.layout = layout
        self.rows = rows
    }

    public var markdown: String {
        var lines = ["## \(title)", ""]
        switch layout {
        case .throughput:
            lines += ["| Benchmark | p50 | p90 | p99 | ops/s | \(ratioHeading) |", "|---|---:|---:|---:|---:|---:|"]
            for row in rows {
                lines.append("| \(row.name) | \(row.p50) | \(row.p90) | \(row.p99) | \(row.opsPerSecond.map(Format.rate) ?? "—") | \(row.ratio) |")
            }
        case .latency:
            lines += ["| Benchmark | samples | p50 | p90 | p99 | max | \(ratioHeading) |", "|---|---:|---:|---:|---:|---:|---:|"]
            for row in rows {
                lines.append(
                    "| \(row.name) | \(row.samples.map(Format.grouped) ?? "—") | \(row.p50) | \(row.p90) | \(row.p99) | \(row.maximum) | \(row.ratio) |")
            }
        }
        if !notes.isEmpty { lines.append("") }
        lines.append(contentsOf: notes.map { "- \($0)" })
        lines.append("")
        return lines.joined(separator: "\n")
    }
}

/// Figures as the tables print them: three significant digits, a unit that fits.
public enum Format {
    /// A duration in seconds, as ns, µs, ms or s.
    public static func duration(_ seconds: Double) -> String {
        // A lower bound measured between two processes can come out below zero.
        if seconds < 0 { return "−" + duration(-seconds) }
        switch seconds {
        case ..<1e-6: return "\(significant(seconds * 1e9)) ns"
        case ..<1e-3: return "\(significant(seconds * 1e6)) µs"
        case ..<1: return "\(significant(seconds * 1e3)) ms"
        default: return "\(significant(seconds)) s"
        }
    }

    /// A `Duration`, as ``duration(_:)`` prints seconds.
    public static func duration(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return self.duration(Double(seconds) + Double(attoseconds) / 1e18)
    }

    public static func seconds(_ seconds: Double) -> String { "\(significant(seconds)) s" }

    /// Operations per second, with thousands separated.
    public static func rate(_ perSecond: Double) -> String {
        guard perSecond.isFinite else { return "—" }
        return perSecond >= 1000 ? grouped(Int(perSecond.rounded())) : significant(perSecond)
    }

    /// `value / baseline` as "1.23x".
    public static func ratio(_ value: Double, _ baseline: Double) -> String {
        guard baseline > 0 else { return "—" }
        return "\(significant(value / baseline))x"
    }

    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }

    /// Three significant digits, without exponents.
    public static func significant(_ value: Double) -> String {
        // Int(_:) traps on infinity and NaN (a division by a zero time); such a figure is printed as is.
        guard value.isFinite, abs(value) < 1e15 else { return "\(value)" }
        let magnitude = abs(value)
        let decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3
        if decimals == 0 { return grouped(Int(value.rounded())) }
        return String(format: "%.\(decimals)f", value)
    }
}
