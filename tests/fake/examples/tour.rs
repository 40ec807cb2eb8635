//! A tour of the marketplace client: the OAuth flow, then a summary of a workroom.
//!
//! `cargo run --example tour` starts the embedded fake marketplace (HTTPS on 127.0.0.1, demo
//! credentials) and needs nothing else. To tour a real deployment instead, set
//! `MARKETPLACE_BASE_URL`, `MARKETPLACE_CONSUMER_KEY`, `MARKETPLACE_CONSUMER_SECRET` and the
//! workroom to show, `MARKETPLACE_BID_ID` (optionally `MARKETPLACE_FIXED_BID_ID`, and
//! `MARKETPLACE_SCREENS_BID_ID` with `MARKETPLACE_SCREENS_USER_ID`); the tour prints the
//! authorization URL and reads the verifier you are shown from standard input. What the
//! service wrote (names, titles, statuses) is printed through `OneLine`, so a deployment's text
//! cannot start a line or drive the terminal.

// A deployment's numbers are whatever it sends: every sum and product here is checked (a
// `Decimal`'s `*` and `+` panic past its range), and clippy refuses one that is not.
#![deny(clippy::arithmetic_side_effects)]

use std::error::Error;
use std::process::ExitCode;

use marketplace_client::oauth::Verifier;
use marketplace_client::{Client, ConsumerCredentials, Decimal, OneLine, Session};
use marketplace_fake::{Authorization, FakeMarketplace};

type Result<T, E = Box<dyn Error>> = std::result::Result<T, E>;

/// The workrooms the summary shows.
struct Workrooms {
    hourly: u64,
    fixed: Option<u64>,
    screens: Option<(u64, u64)>,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("the tour stopped: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<()> {
    match std::env::var("MARKETPLACE_BASE_URL") {
        Ok(base_url) => tour_deployment(&base_url).await,
        Err(_) => tour_fake().await,
    }
}

async fn tour_fake() -> Result<()> {
    let fake = FakeMarketplace::start().await?;
    let demo = fake.credentials();
    println!("Started the fake marketplace at {}", fake.base_url());
    println!(
        "  demo app key {:?}; users {}",
        demo.consumer_key,
        demo.logins.join(", ")
    );

    let client = Client::builder(
        fake.base_url(),
        ConsumerCredentials::new(&demo.consumer_key, &demo.consumer_secret),
    )
    .http_client(fake.http_client())
    .build()?;

    heading("OAuth 1.0a, three legs");
    let request = client
        .request_token(Some("tour-app://oauth/callback"))
        .await?;
    println!("1. request token {}", OneLine(&request.token));
    let url = client.authorization_url(&request);
    println!("2. the user approves at {url}");
    let callback = match fake.authorize(url.as_str(), "dwhitfield", true).await? {
        Authorization::Callback(callback) => callback,
        other => return Err(format!("expected a redirect to the callback, got {other:?}").into()),
    };
    println!("3. the service redirects to {callback}");
    let verifier = client.verifier_from_callback(&request, callback.as_str())?;
    let token = client.access_token(&request, &verifier).await?;
    let access_token = token.token().to_owned();
    let session = client.session(token);
    println!(
        "4. access token {access_token} granted, valid until {}",
        session.expires_at()
    );

    let workrooms = Workrooms {
        hourly: 310001,
        fixed: Some(310002),
        screens: Some((310003, 50003)),
    };
    summarize(&session, &workrooms).await?;

    session.revoke().await?;
    println!("\nRevoked the access token; the tour is over.");
    next_steps(true);
    Ok(())
}

async fn tour_deployment(base_url: &str) -> Result<()> {
    let env = |name: &str| std::env::var(name).map_err(|_| format!("set {name}"));
    let id = |name: &str| -> Result<Option<u64>> {
        match std::env::var(name) {
            Ok(text) => Ok(Some(
                text.trim()
                    .parse()
                    .map_err(|_| format!("{name}: not an ID"))?,
            )),
            Err(_) => Ok(None),
        }
    };
    let consumer = ConsumerCredentials::new(
        env("MARKETPLACE_CONSUMER_KEY")?,
        env("MARKETPLACE_CONSUMER_SECRET")?,
    );
    let workrooms = Workrooms {
        hourly: id("MARKETPLACE_BID_ID")?.ok_or("set MARKETPLACE_BID_ID")?,
        fixed: id("MARKETPLACE_FIXED_BID_ID")?,
        screens: id("MARKETPLACE_SCREENS_BID_ID")?.zip(id("MARKETPLACE_SCREENS_USER_ID")?),
    };
    let client = Client::builder(base_url, consumer).build()?;

    heading("OAuth 1.0a, three legs");
    let request = client.request_token(None).await?;
    println!("Open this page, approve the application, and type the verifier shown:");
    println!("  {}", client.authorization_url(&request));
    let mut typed = String::new();
    std::io::stdin().read_line(&mut typed)?;
    let token = client
        .access_token(&request, &Verifier::new(&typed)?)
        .await?;
    let session = client.session(token);
    println!("Access token granted, valid until {}", session.expires_at());
    summarize(&session, &workrooms).await?;
    next_steps(false);
    Ok(())
}

/// A sum or product of the service's numbers to two places, or what stopped it: past the
/// largest `Decimal` (about 7.9e28), which no real amount is.
fn exact(value: Option<Decimal>) -> String {
    value.map_or_else(
        || "(too large)".to_owned(),
        |value| value.round_dp(2).to_string(),
    )
}

/// Where a reader goes from here: this file, the manual's pages (paths from the repository's
/// root), and, after the fake's tour, how to take the same tour against a real deployment.
fn next_steps(after_the_fake: bool) {
    println!("\nNext: read this tour's code, {}", file!());
    println!("  then docs/using-the-client.md and docs/testing-with-the-fake.md");
    if after_the_fake {
        println!(
            "  against a real deployment: set MARKETPLACE_BASE_URL, MARKETPLACE_CONSUMER_KEY,\n  \
             MARKETPLACE_CONSUMER_SECRET and MARKETPLACE_BID_ID, and run the same command"
        );
    }
}

async fn summarize(session: &Session, workrooms: &Workrooms) -> Result<()> {
    timesheets(session, workrooms.hourly).await?;
    if let Some(fixed) = workrooms.fixed {
        status_reports(session, fixed).await?;
    }
    providers(session).await?;
    if let Some((bid, user)) = workrooms.screens {
        screens(session, bid, user).await?;
    }
    Ok(())
}

async fn timesheets(session: &Session, bid: u64) -> Result<()> {
    let first = session.get_timesheets_for_bid(bid).rpp(25).send().await?;
    let details = &first.bid_details;
    heading(&format!(
        "Workroom {bid}: {} ({} for {}), {} timesheets",
        OneLine(&details.job_name),
        OneLine(&details.provider_name),
        OneLine(&details.client_name),
        first.total_results
    ));
    println!(
        "{:<10} {:<11} {:<6} {:>8} {:>7} {:>9}  invoice",
        "timesheet", "week ending", "status", "hours", "rate", "amount"
    );
    let sheets: Vec<_> = session
        .get_timesheets_for_bid(bid)
        .rpp(10)
        .items()
        .collect_all()
        .await?;
    let mut hours = Some(Decimal::ZERO);
    let mut billed = Some(Decimal::ZERO);
    let mut invoices = Vec::new();
    for sheet in &sheets {
        let amount = sheet.total_hours.checked_mul(sheet.rate);
        hours = hours.and_then(|sum| sum.checked_add(sheet.total_hours));
        billed = billed
            .zip(amount)
            .and_then(|(sum, amount)| sum.checked_add(amount));
        invoices.extend(sheet.invoice_id);
        println!(
            "{:<10} {:<11} {:<6} {:>8} {:>7} {:>9}  {}",
            sheet.id,
            sheet.week.to_string(),
            OneLine(sheet.status.as_str()),
            sheet.total_hours.round_dp(2),
            sheet.rate.round_dp(2),
            exact(amount),
            sheet.invoice_id.map_or("-".to_owned(), |id| id.to_string()),
        );
    }
    println!(
        "{:<29} {:>8} {:>7} {:>9}",
        "total",
        exact(hours),
        "",
        exact(billed)
    );

    if let Some(&newest) = invoices.first() {
        let billing = session.get_billing(newest).send().await?.billing;
        let invoice = &billing.invoice;
        heading(&format!(
            "Invoice {} ({}, {})",
            invoice.id,
            OneLine(&invoice.status),
            OneLine(&invoice.currency)
        ));
        println!(
            "billed {} / paid {} / outstanding {}",
            invoice.amount_billed, invoice.amount_paid, invoice.amount_outstanding
        );
        for activity in &billing.invoice_activity {
            println!(
                "  {}  {} by {}",
                activity.date,
                OneLine(&activity.activity),
                OneLine(&activity.user)
            );
        }
        for payment in &billing.payments {
            println!(
                "  payment {}: {} {} on {} ({})",
                payment.id,
                payment.amount,
                OneLine(&payment.to_currency),
                payment.date,
                OneLine(&payment.internal_payment_display)
            );
        }
    }
    Ok(())
}

async fn status_reports(session: &Session, bid: u64) -> Result<()> {
    let reports: Vec<_> = session
        .get_status_reports_for_bid(bid)
        .items()
        .collect_all()
        .await?;
    heading(&format!(
        "Fixed-price workroom {bid}: {} status reports",
        reports.len()
    ));
    for report in reports.iter().rev().take(3) {
        let id = report
            .id
            .map_or("current draft".to_owned(), |id| id.to_string());
        println!(
            "  {id:<14} week ending {}  {}  {} h  invoices {:?}",
            report.week,
            OneLine(&report.status),
            report.total_hours,
            report.invoice_ids
        );
    }
    let current = session.get_status_report_by_bid_id(bid).send().await?;
    let done = current
        .progress_items
        .iter()
        .try_fold(Decimal::ZERO, |sum, p| {
            let earned = p
                .amount
                .checked_mul(p.progress_percent)?
                .checked_div(Decimal::ONE_HUNDRED)?;
            sum.checked_add(earned)
        });
    println!(
        "  current report: {} work items, milestone value earned {}",
        current.work_items.len(),
        exact(done)
    );
    Ok(())
}

async fn providers(session: &Session) -> Result<()> {
    let agents: Vec<_> = session.get_my_providers().items().collect_all().await?;
    let on_tracker: Vec<_> = agents.iter().filter(|agent| agent.is_on_tracker).collect();
    heading(&format!(
        "Providers: {} employed, {} on the tracker now",
        agents.len(),
        on_tracker.len()
    ));
    for agent in on_tracker {
        let screen = &agent.screen_data;
        println!(
            "  {:<12} {:<28} {:>6} h today, {:>7} h on the project",
            OneLine(&screen.user_name),
            OneLine(&screen.company_name),
            agent.hours_today,
            agent.hours
        );
    }
    Ok(())
}

/// Screenshot buckets per hour, for the newest days with data (walking back with prevDate).
async fn screens(session: &Session, bid: u64, user: u64) -> Result<()> {
    let mut day = Some(session.get_workview_details(bid, user).send().await?.date);
    for _ in 0..3 {
        let Some(date) = day else { break };
        let summary = session
            .get_workview_details(bid, user)
            .date(date)
            .send()
            .await?;
        heading(&format!(
            "Screenshots of {} on {} ({} hours worked)",
            OneLine(&summary.user_name),
            summary.date,
            summary.hours
        ));
        let buckets: Vec<_> = session
            .get_workview_details(bid, user)
            .date(date)
            .items()
            .collect_all()
            .await?;
        for bucket in &buckets {
            println!(
                "  {:<15} {} {}",
                OneLine(&bucket.title),
                "#".repeat(bucket.screens.len()),
                bucket.screens.len()
            );
        }
        day = summary.prev_date;
    }
    Ok(())
}

fn heading(text: &str) {
    println!("\n{text}\n{}", "-".repeat(text.chars().count()));
}
