import Foundation

/// Where a child leaves its report for the coordinator: beside the soaked file.
enum ReportFile {
    static func path(name: String, besides file: String) -> String {
        URL(filePath: file).deletingLastPathComponent().appending(path: "report-\(name).json").path(percentEncoded: false)
    }

    /// - Returns: whether the report was written.
    static func write(_ report: some Encodable, name: String, besides file: String) -> Bool {
        do {
            try JSONEncoder().encode(report).write(to: URL(filePath: path(name: name, besides: file)))
            return true
        } catch {
            ChildChannel.note(name, "could not write the report: \(error)")
            return false
        }
    }

    static func read<Report: Decodable>(_ type: Report.Type, name: String, besides file: String) -> Report? {
        guard let bytes = RawFile.read(path(name: name, besides: file)) else { return nil }
        return try? JSONDecoder().decode(type, from: Data(bytes))
    }
}
