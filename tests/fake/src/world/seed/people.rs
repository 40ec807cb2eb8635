//! The people of the world: two clients and their providers.

use crate::world::User;
use crate::world::records::Person;

/// A row of [`PEOPLE`]: id, login, name, short name, company, country, country code, city.
type PersonRow = (
    u64,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

/// The people of the world.
#[rustfmt::skip]
const PEOPLE: [PersonRow; 30] = [
    (40001, "dwhitfield", "Dana Whitfield", "Dana W.", "Whitfield Outdoor Goods", "United States", "US", "Portland"),
    (40002, "mkhan", "Mira Khan", "Mira K.", "Khan Analytics Ltd", "United Kingdom", "GB", "Manchester"),
    (50001, "ravimenon", "Ravi Menon", "Ravi M.", "Menon Software Studio", "India", "IN", "Pune"),
    (50002, "lkovacs", "Lena Kovacs", "Lena K.", "Kovacs Design", "Germany", "DE", "Berlin"),
    (50003, "tortega", "Tomas Ortega", "Tomas O.", "Ortega Data Consulting", "Spain", "ES", "Valencia"),
    (50004, "jsato", "Jun Sato", "Jun S.", "Sato Cloud Works", "Japan", "JP", "Osaka"),
    (50005, "anovak", "Ana Novak", "Ana N.", "Novak Web", "Slovenia", "SI", "Ljubljana"),
    (50006, "bchen", "Bo Chen", "Bo C.", "Chen Mobile Labs", "Taiwan", "TW", "Taipei"),
    (50007, "cdubois", "Claire Dubois", "Claire D.", "Dubois Studio", "France", "FR", "Lyon"),
    (50008, "dmwangi", "David Mwangi", "David M.", "Mwangi Digital", "Kenya", "KE", "Nairobi"),
    (50009, "esilva", "Elena Silva", "Elena S.", "Silva Consulting", "Portugal", "PT", "Porto"),
    (50010, "fyilmaz", "Fatma Yilmaz", "Fatma Y.", "Yilmaz Software", "Turkey", "TR", "Izmir"),
    (50011, "grossi", "Giulia Rossi", "Giulia R.", "Rossi Labs", "Italy", "IT", "Turin"),
    (50012, "hnguyen", "Hoang Nguyen", "Hoang N.", "Nguyen Studio", "Vietnam", "VN", "Da Nang"),
    (50013, "ipetrov", "Ivan Petrov", "Ivan P.", "Petrov Consulting", "Bulgaria", "BG", "Sofia"),
    (50014, "jlarsen", "Jonas Larsen", "Jonas L.", "Larsen Digital", "Denmark", "DK", "Aarhus"),
    (50015, "kokafor", "Kemi Okafor", "Kemi O.", "Okafor Software", "Nigeria", "NG", "Lagos"),
    (50016, "lgarcia", "Lucia Garcia", "Lucia G.", "Garcia Labs", "Argentina", "AR", "Cordoba"),
    (50017, "mnowak", "Marek Nowak", "Marek N.", "Nowak Studio", "Poland", "PL", "Krakow"),
    (50018, "nfernando", "Nimal Fernando", "Nimal F.", "Fernando Consulting", "Sri Lanka", "LK", "Colombo"),
    (50019, "oandersson", "Olof Andersson", "Olof A.", "Andersson Digital", "Sweden", "SE", "Gothenburg"),
    (50020, "pmurphy", "Paul Murphy", "Paul M.", "Murphy Software", "Ireland", "IE", "Cork"),
    (50021, "qzhang", "Qing Zhang", "Qing Z.", "Zhang Labs", "Singapore", "SG", "Singapore"),
    (50022, "rsantos", "Rafael Santos", "Rafael S.", "Santos Studio", "Brazil", "BR", "Recife"),
    (50023, "skumar", "Sanjay Kumar", "Sanjay K.", "Kumar Consulting", "India", "IN", "Bengaluru"),
    (50024, "tmoreau", "Theo Moreau", "Theo M.", "Moreau Digital", "Belgium", "BE", "Ghent"),
    (50025, "uhassan", "Umar Hassan", "Umar H.", "Hassan Software", "Pakistan", "PK", "Lahore"),
    (50026, "vkowalski", "Vera Kowalski", "Vera K.", "Kowalski Labs", "Canada", "CA", "Winnipeg"),
    (50027, "wtanaka", "Wataru Tanaka", "Wataru T.", "Tanaka Studio", "Japan", "JP", "Fukuoka"),
    (50028, "xlopez", "Ximena Lopez", "Ximena L.", "Lopez Consulting", "Mexico", "MX", "Guadalajara"),
];

/// Every person of [`PEOPLE`], in its order.
pub(super) fn people() -> Vec<Person> {
    PEOPLE
        .iter()
        .map(
            |&(id, login, name, short, company, country, code, city)| Person {
                user: User {
                    id,
                    login: login.to_owned(),
                    name: name.to_owned(),
                },
                display_name: short.to_owned(),
                company: company.to_owned(),
                country: country.to_owned(),
                country_code: code.to_owned(),
                city: city.to_owned(),
            },
        )
        .collect()
}
