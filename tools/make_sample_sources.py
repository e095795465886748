"""Generate the sample PDF and HTML sources of pincite's own corpus, byte for byte reproducibly.

    python tools/make_sample_sources.py             # revision 1 (the first committed state)
    python tools/make_sample_sources.py --revision 2  # one PDF paragraph and one HTML paragraph edited

Writes corpus/reports/*.pdf and corpus/web/*.html under the repository root (or --out).
The PDFs use fpdf2 (the `test` extra) with a fixed creation date, so the same revision and
the same fpdf2 version always give the same bytes.
"""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

from fpdf import FPDF

ORG = "Larkspur Field Services"
FIXED_DATE = dt.datetime(2025, 10, 6, 9, 0, 0, tzinfo=dt.UTC)

ROOT_CAUSE = {
    1: (
        "The root cause was a reporting job that copied the volunteer roster to a shared folder every night. "
        "The folder had been shared with a partner charity in 2023 for a one-off event, and the share was "
        "never withdrawn. No password or access review covered folders created for short projects."
    ),
    2: (
        "The root cause was a reporting job that copied the volunteer roster to a shared folder every night. "
        "The folder had been shared with a partner charity in 2023 for a one-off event; the share had an "
        "expiry date that the storage service silently ignored after a plan change in May 2025. Our access "
        "review covered named accounts but not sharing links."
    ),
}

PER_DIEM = {
    1: (
        "Meals on travel days are covered by a flat per-diem of 42 euros within the country and 55 euros "
        "abroad. Receipts are not needed for the per-diem. Alcohol is never reimbursed."
    ),
    2: (
        "Meals on travel days are covered by a flat per-diem of 45 euros within the country and 60 euros "
        "abroad, paid with the next salary run. Receipts are not needed for the per-diem. Alcohol is never "
        "reimbursed, and neither are meals already included in a conference fee."
    ),
}


class _Pdf(FPDF):
    def __init__(self, title: str) -> None:
        super().__init__(format="A4")
        self.doc_title = title
        self.set_creation_date(FIXED_DATE)
        self.set_title(title)
        self.set_author(ORG)
        self.set_auto_page_break(auto=True, margin=22)
        self.set_margins(20, 20, 20)

    def footer(self) -> None:
        self.set_y(-14)
        self.set_font("Helvetica", size=8)
        self.cell(0, 6, f"{ORG} - {self.doc_title} - page {self.page_no()}", align="C")

    def heading(self, text: str) -> None:
        self.ln(3)
        self.set_font("Helvetica", style="B", size=13)
        self.multi_cell(0, 7, text, align="L", new_x="LMARGIN", new_y="NEXT")
        self.ln(1)

    def para(self, text: str) -> None:
        self.set_font("Helvetica", size=10.5)
        self.multi_cell(0, 5.5, text, align="L", new_x="LMARGIN", new_y="NEXT")
        self.ln(2)

    def footnotes(self, notes: list[str]) -> None:
        """Footnotes set at the foot of the current page, under a short rule."""
        self.set_font("Helvetica", size=8)
        height = 4.2 * sum(1 + len(n) // 110 for n in notes) + 4
        self.set_y(-22 - height)
        self.line(20, self.get_y(), 70, self.get_y())
        self.ln(1.5)
        for number, note in enumerate(notes, start=1):
            self.multi_cell(0, 4.2, f"{number}  {note}", align="L", new_x="LMARGIN", new_y="NEXT")


def incident_report(revision: int) -> bytes:
    pdf = _Pdf("Incident report IR-2025-07")
    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=18)
    pdf.multi_cell(
        0,
        9,
        "Incident report IR-2025-07: volunteer roster exposed through a stale share",
        align="L",
        new_x="LMARGIN",
        new_y="NEXT",
    )
    pdf.set_font("Helvetica", size=9)
    pdf.cell(0, 6, "Classification: internal. Status: closed. Owner: operations lead.", new_x="LMARGIN", new_y="NEXT")
    pdf.heading("1. Summary")
    pdf.para(
        "Between 14 and 21 July 2025 a spreadsheet holding the names, phone numbers and availability of 212 "
        "volunteers could be opened by anyone holding an old sharing link.1 We found no sign that the link "
        "was used by anyone outside the organisation, and no financial or health data was in the file."
    )
    pdf.para(
        "The exposure was reported by a volunteer coordinator on 21 July at 10:05 and contained within 40 "
        "minutes. We informed the supervisory authority on 23 July, inside the 72-hour window.2"
    )
    pdf.heading("2. Impact")
    pdf.para(
        "Personal data of 212 volunteers: full name, mobile number, postcode district and weekday "
        "availability. No special-category data. Access logs show 3 openings of the file in the period, "
        "all from staff accounts."
    )
    pdf.footnotes(
        [
            "Sharing links of the storage service do not require a sign-in; anyone with the address can open the file.",
            "The notification reference is SA-2025-0412. The authority closed the case on 2 September 2025.",
        ]
    )
    pdf.add_page()
    pdf.heading("3. Timeline (all times local)")
    for line in (
        "14 July 02:00 - the nightly job writes the roster into the shared folder for the first time.",
        "21 July 09:48 - a coordinator notices the folder in a partner's file listing.",
        "21 July 10:05 - the coordinator reports it to the on-call contact.",
        "21 July 10:45 - the share is withdrawn and the file moved to a private folder.",
        "23 July 16:30 - the supervisory authority is notified.",
    ):
        pdf.para(line)
    pdf.heading("4. Root cause")
    pdf.para(ROOT_CAUSE[revision])
    pdf.heading("5. What went well")
    pdf.para(
        "The coordinator knew whom to call, and the on-call contact had the rights to withdraw the share "
        "without waiting for the storage administrator."
    )
    pdf.add_page()
    pdf.heading("6. Actions")
    for line in (
        "A1. Review every sharing link older than 90 days, monthly. Owner: operations lead. Done 1 Sept 2025.",
        "A2. The nightly job writes to a private folder only. Owner: data steward. Done 22 July 2025.",
        "A3. Add sharing links to the quarterly access review. Owner: security lead. Due 31 Dec 2025.",
        "A4. Brief all coordinators on reporting suspected exposures. Owner: volunteer manager. Done.",
    ):
        pdf.para(line)
    pdf.heading("7. Sign-off")
    pdf.para("Approved by the board's risk committee on 30 September 2025.")
    return bytes(pdf.output())


RETENTION_ROWS = [
    ("Volunteer applications", "2 years after the volunteer leaves, then deleted."),
    ("Volunteer rosters", "12 months after the rota period ends."),
    (
        "Safeguarding records",
        "Until the person concerned is 25, or 6 years after the last contact, whichever is longer.",
    ),
    ("Donor records (Gift Aid)", "6 years after the end of the financial year of the last gift."),
    ("Payroll and pension", "6 years after the end of the tax year they relate to."),
    ("Incident reports", "6 years after the incident is closed; personal data in them is minimised."),
    ("Access logs", "13 months, rolling."),
    ("Email of departed staff", "90 days after the last working day, unless a hold applies."),
    ("CCTV at the depot", "31 days, unless footage is requested for an investigation."),
    ("Board minutes", "Permanently."),
]


RETENTION_NOTES = [
    "How deletion is checked. Every quarter the data steward picks five records from each category that "
    "should have been deleted and confirms that they are gone from the live systems. The result goes into "
    "the retention log with the date, the categories checked and any record found too late.",
    "Legal holds. A hold is placed by the chair or the operations lead when a claim, an investigation or a "
    "regulator's request is expected. The hold names the categories and people concerned, and it is "
    "reviewed every six months. Records under a hold are not deleted even when their period has ended.",
    "Shared folders and links. Records copied into shared folders or sent as links follow the schedule of "
    "the original record. Links are withdrawn when the purpose they were made for has ended, and at the "
    "latest after 90 days, unless the data steward agrees a longer period in writing.",
    "Paper records. Paper is kept in the locked cabinet at the depot and shredded on site by the contracted "
    "service, which issues a certificate for each collection. Certificates are kept for six years.",
    "Questions about this schedule go to the data steward. Requests from individuals to see or erase "
    "their data follow the subject access procedure, not this schedule.",
]


def retention_schedule() -> bytes:
    pdf = _Pdf("Data retention schedule")
    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=18)
    pdf.multi_cell(0, 9, "Data retention schedule", align="L", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=9)
    pdf.cell(0, 6, f"{ORG}. Version 3, approved 12 June 2025. Review yearly.", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    intro = (
        "This schedule says how long we keep each kind of record and what happens at the end of that period. "
        "It applies to paper and electronic records alike. When a legal hold applies, records are kept until "
        "the hold is lifted, whatever this schedule says. Deletion means deletion from live systems; backups "
        "expire on their own 35-day cycle and are never restored to recover deleted personal data. "
    )
    body = intro + "\n\n"
    for name, rule in RETENTION_ROWS:
        body += f"{name}. {rule}\n\n"
    body += "\n\n".join(RETENTION_NOTES) + "\n"
    pdf.set_font("Helvetica", size=10)
    with pdf.text_columns(ncols=2, gutter=8, text_align="LEFT", line_height=1.25) as cols:
        cols.write(text=body)
    pdf.add_page()
    pdf.heading("Appendix: where each category lives")
    appendix = "".join(
        f"{name}. System: {system}. Owner: {owner}. Deletion: {how}.\n\n" for name, system, owner, how in SYSTEMS
    )
    pdf.set_font("Helvetica", size=10)
    with pdf.text_columns(ncols=2, gutter=8, text_align="LEFT", line_height=1.25) as cols:
        cols.write(text=appendix)
    return bytes(pdf.output())


SYSTEMS = [
    ("Volunteer applications", "volunteer app", "volunteer manager", "automatic, nightly job"),
    ("Volunteer rosters", "rota spreadsheet in the private operations folder", "operations lead", "manual, quarterly"),
    ("Safeguarding records", "locked case folder", "safeguarding lead", "manual, after review by two people"),
    ("Donor records (Gift Aid)", "donor database", "finance lead", "automatic, yearly in April"),
    ("Payroll and pension", "payroll provider", "finance lead", "by the provider, confirmed in writing"),
    ("Incident reports", "incident register", "security lead", "manual, yearly"),
    ("Access logs", "identity provider", "security lead", "automatic, rolling"),
    ("Email of departed staff", "mail service", "operations lead", "automatic after the account is closed"),
    ("CCTV at the depot", "recorder in the depot office", "depot manager", "automatic overwrite"),
    ("Board minutes", "board folder and the paper minute book", "chair", "never deleted"),
]


TRAVEL_POLICY = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Travel and expenses policy | {org}</title>
<style>body {{ font-family: sans-serif; }} .banner {{ display: none; }}</style>
<script>window.analytics = {{ track: function () {{ return "not part of the policy"; }} }};</script>
</head>
<body>
<nav class="site-nav"><a href="/">Home</a> <a href="/handbook/">Handbook</a> <a href="/contact/">Contact</a></nav>
<div class="banner" style="display:none">Cookie notice that no reader sees.</div>
<main>
<article>
<h1>Travel and expenses policy</h1>
<p>This policy covers travel for work by staff and by volunteers who travel on the organisation&#8217;s
behalf. It applies from 1 March 2025 and replaces the 2021 guidance.</p>
<h2>Booking</h2>
<p>Book rail for journeys under six hours; flights need the written approval of your manager before
booking. Book through the shared travel account so that tickets can be changed if plans move.</p>
<h2>Meals</h2>
<p>{per_diem}</p>
<h2>Accommodation</h2>
<p>Hotels up to 130 euros a night are approved without asking; above that, ask the finance lead first.
Staying with friends or family is fine, and a 25-euro thank-you allowance can be claimed.</p>
<h2>Claims</h2>
<ul>
<li>Submit claims within 30 days of the trip.</li>
<li>Attach receipts for everything except the per-diem.</li>
<li>Claims are paid with the next monthly payment run.</li>
</ul>
<p hidden>Draft note: check the mileage rate with the accountant.</p>
<!-- internal comment: numbers agreed at the June finance meeting -->
</article>
</main>
<footer class="site-footer"><p>&copy; 2025 {org}. Registered charity.</p></footer>
</body>
</html>
"""

ADVISORY = """<!DOCTYPE html>
<html lang="en">
<head>
<meta http-equiv="Content-Type" content="text/html; charset=utf-8">
<title>Security advisory LFS-SA-2025-03: phishing calls about rota changes</title>
</head>
<body>
<header><a href="/">{org}</a></header>
<div id="content" class="advisory">
<h1>Security advisory LFS-SA-2025-03</h1>
<p class="meta">Published 8 August 2025. Severity: medium. Audience: all coordinators and volunteers.</p>
<h2>What is happening</h2>
<p>Several volunteers have received phone calls from someone claiming to be from our rota team. The caller
says a shift has changed and asks the volunteer to confirm a one-time code that arrives by text message.
The code is the second factor of the volunteer&#8217;s account: giving it away lets the caller sign in.</p>
<h2>What to do</h2>
<p>Never read out or forward a sign-in code, whoever asks. Our staff will never ask for one. If you gave a
code away, change your password at once and tell the on-call contact, who can sign out every session.</p>
<h2>What we are changing</h2>
<p>From 1 September 2025 rota changes are only announced in the volunteer app, never by phone, and sign-in
codes are replaced by an app prompt that shows where the sign-in comes from.</p>
<table>
<tr><th>Date</th><th>Change</th></tr>
<tr><td>8 August 2025</td><td>Advisory published</td></tr>
<tr><td>1 September 2025</td><td>App prompts replace text-message codes</td></tr>
</table>
</div>
<script src="/static/app.js"></script>
</body>
</html>
"""


def travel_policy(revision: int) -> str:
    return TRAVEL_POLICY.format(org=ORG, per_diem=PER_DIEM[revision])


def security_advisory() -> str:
    return ADVISORY.format(org=ORG)


def write_sources(root: Path, revision: int) -> list[Path]:
    outputs = {
        root / "corpus/reports/incident-report-ir-2025-07.pdf": incident_report(revision),
        root / "corpus/reports/data-retention-schedule.pdf": retention_schedule(),
        root / "corpus/web/travel-policy.html": travel_policy(revision).encode("utf-8"),
        root / "corpus/web/security-advisory-2025-03.html": security_advisory().encode("utf-8"),
    }
    for path, data in outputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return list(outputs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--revision", type=int, choices=sorted(ROOT_CAUSE), default=1)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args()
    for path in write_sources(args.out, args.revision):
        print(path)


if __name__ == "__main__":
    main()
