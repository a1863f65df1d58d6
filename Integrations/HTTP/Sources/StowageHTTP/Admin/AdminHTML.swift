#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Stowage
import StowageHistory
import StowageFlags

/// The admin page's HTML, rendered on the server: no build step, and a page
/// that works without JavaScript (which only adds live updates and filtering).
/// Every text from a store, a user or a request is escaped.
struct AdminHTML {
    let base: String
    let title: String

    /// What every page of a signed-in user shares.
    struct Viewer {
        let name: String
        let role: AdminUsers.Role
        let csrf: String
    }

    static func escape(_ text: some StringProtocol) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A key as one segment of a path.
    static func pathSegment(_ key: String) -> String {
        var segment = ""
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                segment.append(Character(Unicode.Scalar(byte)))
            default:
                let hex = Array("0123456789ABCDEF")
                segment += "%\(hex[Int(byte >> 4)])\(hex[Int(byte & 0xF)])"
            }
        }
        return segment
    }

    func page(_ heading: String, viewer: Viewer?, _ body: String) -> String {
        let e: (String) -> String = { Self.escape($0) }
        var header = "<header><a class=\"home\" href=\"\(e(base))/\">\(e(title))</a>"
        if let viewer {
            header += """
                <span class="who" id="signed-in-as">\(e(viewer.name)) · \(viewer.role.rawValue)</span>\
                <form method="post" action="\(e(base))/sign-out">\(csrfField(viewer))<button type="submit">Sign out</button></form>
                """
        }
        header += "</header>"
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(e(heading)) · \(e(title))</title><link rel="stylesheet" href="\(e(base))/assets/admin.css">
            <script src="\(e(base))/assets/admin.js" defer></script></head>
            <body data-base="\(e(base))">\(header)<main>\(body)</main></body></html>
            """
    }

    func csrfField(_ viewer: Viewer) -> String {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(Self.escape(viewer.csrf))\">"
    }

    func signIn(error: String?) -> String {
        let e: (String) -> String = { Self.escape($0) }
        return page(
            "Sign in", viewer: nil,
            """
            <h1>Sign in</h1>\(error.map { "<p class=\"error\" role=\"alert\">\(e($0))</p>" } ?? "")
            <form method="post" action="\(e(base))/sign-in" class="sign-in">
            <label>Name <input name="name" id="name" autocomplete="username"></label>
            <label>Password <input name="password" id="password" type="password" autocomplete="current-password"></label>
            <p class="or">or</p>
            <label>Token <input name="token" id="token" type="password" autocomplete="off"></label>
            <button type="submit" id="sign-in">Sign in</button></form>
            """)
    }

    // MARK: The list

    func list(flags: [FlagState], settings: [(key: String, value: StoredValue, secret: Bool)]?, query: String, viewer: Viewer) -> String {
        let e: (String) -> String = { Self.escape($0) }
        let origins = FlagOrigin.allCases.map { "<option value=\"\($0.rawValue)\">\($0.rawValue)</option>" }.joined()
        var rows = ""
        for state in flags {
            let value = FlagInput.text(of: state.value)
            var toggle = ""
            if viewer.role == .editor, case .bool(let on) = state.value {
                toggle = """
                    <form method="post" action="\(e(base))/flags/\(Self.pathSegment(state.key))/value" class="inline">\(csrfField(viewer))\
                    <input type="hidden" name="value" value="\(!on)"><input type="hidden" name="from" value="list">\
                    <button type="submit" class="toggle" data-toggle="\(e(state.key))">Turn \(on ? "off" : "on")</button></form>
                    """
            }
            rows += """
                <tr data-key="\(e(state.key))" data-search="\(e((state.key + " " + state.definition.description).lowercased()))" \
                data-origin="\(state.origin.rawValue)"><td><a href="\(e(base))/flags/\(Self.pathSegment(state.key))">\(e(state.key))</a></td>\
                <td>\(e(state.definition.description))</td><td>\(e(state.type.description))</td>\
                <td class="value"><code>\(e(String(value.prefix(120))))</code>\(toggle)</td><td class="origin">\(state.origin.rawValue)</td>\
                <td>\(state.hasTargeting ? "targets" : "—")</td></tr>\n
                """
        }
        var settingsTable = ""
        if let settings {
            let settingRows = settings.map { entry in
                let shown = entry.secret ? "<span class=\"secret\">secret</span>" : "<code>\(e(String(FlagInput.text(of: entry.value).prefix(120))))</code>"
                return
                    "<tr data-key=\"\(e(entry.key))\"><td><a href=\"\(e(base))/settings/\(Self.pathSegment(entry.key))\">\(e(entry.key))</a></td><td>\(shown)</td></tr>"
            }
            settingsTable = """
                <h2>Settings</h2><table id="settings"><thead><tr><th>Key</th><th>Value</th></tr></thead><tbody>
                \(settingRows.joined(separator: "\n"))</tbody></table>
                """
        }
        return page(
            "Flags", viewer: viewer,
            """
            <h1>Flags</h1>
            <form class="filters" method="get" action="\(e(base))/"><input type="search" id="search" name="q" value="\(e(query))" \
            placeholder="Search keys and descriptions" aria-label="Search flags"><select id="origin-filter" aria-label="Origin">\
            <option value="">every origin</option>\(origins)</select></form>
            <div id="live-list" data-live>
            <table id="flags"><thead><tr><th>Key</th><th>Description</th><th>Type</th><th>Value</th><th>Origin</th><th>Targeting</th></tr></thead>
            <tbody>\(rows)</tbody></table>\(settingsTable)</div>
            """)
    }

    // MARK: A flag

    func flag(_ state: FlagState, history: [AdminHistoryEntry], viewer: Viewer, notice: String?, error: String?, input: [String: String]) -> String {
        let e: (String) -> String = { Self.escape($0) }
        let path = "\(e(base))/flags/\(Self.pathSegment(state.key))"
        var edits = ""
        if viewer.role == .editor {
            let rule = state.configuration?.targeting.map { AdminValueText.pretty($0) } ?? ""
            edits = """
                <section class="edits"><h2>Change</h2>
                <form method="post" action="\(path)/value">\(csrfField(viewer))<label>Value for every server \
                <input name="value" id="value-input" value="\(e(input["value"] ?? FlagInput.text(of: state.value)))"></label>\
                <button type="submit" id="save-value">Save value</button>\
                <p class="hint">Takes \(e(state.type.expectation)). A value replaces the flag's rule.</p></form>
                <form method="post" action="\(path)/rule">\(csrfField(viewer))<label>Targeting rule (JsonLogic, as flagd reads it; empty for none)\
                <textarea name="targeting" id="rule-input" rows="8" spellcheck="false">\(e(input["targeting"] ?? rule))</textarea></label>\
                <button type="submit" id="save-rule">Check and save rule</button></form>
                <form method="post" action="\(path)/override">\(csrfField(viewer))<label>Override on this server \
                <input name="value" id="override-input" value="\(e(input["override"] ?? ""))"></label>\
                <button type="submit" id="save-override">Override</button></form>
                <form method="post" action="\(path)/override/reset">\(csrfField(viewer))<button type="submit" id="reset-override">Reset override</button></form>
                </section>
                """
        }
        var toggle = ""
        if viewer.role == .editor, case .bool(let on) = state.value {
            toggle = """
                <form method="post" action="\(path)/value" class="inline">\(csrfField(viewer))<input type="hidden" name="value" value="\(!on)">\
                <button type="submit" class="toggle" id="toggle">Turn \(on ? "off" : "on")</button></form>
                """
        }
        return page(
            state.key, viewer: viewer,
            """
            <p><a href="\(e(base))/">← Flags</a></p><h1><code>\(e(state.key))</code></h1><p>\(e(state.definition.description))</p>
            \(notice.map { "<p class=\"notice\" role=\"status\" id=\"notice\">\(e($0))</p>" } ?? "")\
            \(error.map { "<p class=\"error\" role=\"alert\" id=\"error\">\(e($0))</p>" } ?? "")
            <div id="live-flag" data-live><dl class="state">
            <dt>Value</dt><dd><code id="flag-value">\(e(FlagInput.text(of: state.value)))</code> \(toggle)</dd>
            <dt>Origin</dt><dd id="flag-origin">\(state.origin.rawValue)</dd>
            <dt>Type</dt><dd>\(e(state.type.description))</dd>
            <dt>Default</dt><dd><code>\(e(FlagInput.text(of: state.defaultValue)))</code></dd>
            <dt>Targeting</dt><dd id="flag-targeting">\(state.hasTargeting ? "yes" : "no")</dd></dl></div>
            \(edits)
            <h2>History</h2><div id="live-history" data-live>\(historyTable(history))</div>
            """)
    }

    // MARK: A setting

    func setting(key: String, value: StoredValue?, secret: Bool, history: [AdminHistoryEntry]?, viewer: Viewer) -> String {
        let e: (String) -> String = { Self.escape($0) }
        let shown = secret ? "<span class=\"secret\">secret</span>" : value.map { "<code>\(e(FlagInput.text(of: $0)))</code>" } ?? "<em>none</em>"
        return page(
            key, viewer: viewer,
            """
            <p><a href="\(e(base))/">← Flags and settings</a></p><h1><code>\(e(key))</code></h1>
            <div id="live-setting" data-live><p>Value: <span id="setting-value">\(shown)</span></p>
            <h2>History</h2>\(history.map(historyTable) ?? "<p>This store keeps no history.</p>")</div>
            """)
    }

    // MARK: History

    func historyTable(_ entries: [AdminHistoryEntry]) -> String {
        let e: (String) -> String = { Self.escape($0) }
        guard !entries.isEmpty else { return "<p class=\"empty\">No changes recorded.</p>" }
        var rows = ""
        for entry in entries {
            let record = entry.record
            let change: String
            switch record.kind {
            case .refusal:
                change = "<span class=\"refused\">Refused: \(e(record.reason ?? "no reason given"))</span>"
            case .change where record.isRedacted:
                change = "<span class=\"secret\">\(record.hasValue ? (record.hadValue ? "changed" : "set") : "removed") (secret)</span>"
            case .change:
                change = Self.change(from: record.hadValue ? record.oldValue : nil, to: record.hasValue ? record.newValue : nil)
            }
            rows += """
                <tr class="\(record.kind.rawValue)"><td><time datetime="\(Self.timestamp(record.date))">\(Self.timestamp(record.date))</time></td>\
                <td class="author">\(e(record.madeBy))</td><td>\(e(entry.label))</td><td>\(change)</td></tr>\n
                """
        }
        return "<table class=\"history\"><thead><tr><th>When (UTC)</th><th>Who</th><th>What</th><th>Change</th></tr></thead><tbody>\(rows)</tbody></table>"
    }

    /// A change as a diff: a short value as old → new, a long or nested one line by line.
    static func change(from old: StoredValue?, to new: StoredValue?) -> String {
        let (oldText, newText) = (old.map { AdminValueText.pretty($0) }, new.map { AdminValueText.pretty($0) })
        if (oldText ?? "").contains("\n") || (newText ?? "").contains("\n") {
            let lines = AdminValueText.diff(oldText ?? "", newText ?? "").map { mark, line in
                let kind = mark == "+" ? "added" : mark == "-" ? "removed" : "kept"
                return "<span class=\"\(kind)\">\(mark) \(escape(line))</span>"
            }
            return "<pre class=\"diff\">\(lines.joined(separator: "\n"))</pre>"
        }
        return "<del>\(oldText.map { escape($0) } ?? "<em>none</em>")</del> → <ins>\(newText.map { escape($0) } ?? "<em>removed</em>")</ins>"
    }

    static func timestamp(_ date: Date) -> String {
        date.ISO8601Format()
    }
}

/// A history entry as a page lists it: where it was recorded, and for a
/// flag's definition, only its part of the definitions' document.
struct AdminHistoryEntry: Sendable {
    var record: ChangeRecord
    let label: String
}
