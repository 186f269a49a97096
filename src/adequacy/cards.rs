//! Playing cards, a token contest inputs use (`QH`, `10C`, `Td`, `AS`): edited as cards, so a
//! new card is always one a deck holds.
//!
//! Edited as letters or fields, `KD` only ever becomes a card whose rank and suit the sample
//! shows (`AD`, `KS`), and the ranks it lacks are never tried: a solution that values `J` as
//! 11 passes every grown test. A rank and a suit are known values, like a month's 1–12.

use rand::Rng;
use std::collections::BTreeSet;

/// The ranks, lowest first, without the ten (written `10` or `T` by the task).
const RANKS: [&str; 12] = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "J", "Q", "K"];

/// How a task's inputs write cards.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Deck {
    /// The ranks in use, lowest first: the ten as the task writes it (`10` or `T`), left out
    /// when its inputs show neither (a guess would be a card no solution reads).
    ranks: Vec<&'static str>,
    /// The suits, in the case the task writes them.
    suits: [char; 4],
    /// Whether one line of the inputs shows a card twice (several decks, a shoe): otherwise
    /// an edit keeps a line's cards distinct, as one deck deals them.
    repeats: bool,
}

/// The rank and suit of `w` when it is a card (either case of suit; the ten as `10` or `T`).
fn split(w: &str) -> Option<(&str, char)> {
    let suit = w.chars().next_back()?;
    let rank = w.get(..w.len().checked_sub(1)?)?;
    let known = RANKS.contains(&rank) || rank == "10" || rank == "T";
    (known && "SHDCshdc".contains(suit)).then_some((rank, suit))
}

impl Deck {
    /// The deck of a task whose `words` (all the words of its inputs) are mostly cards: three
    /// cards or more, of two ranks and two suits or more, in one case of suit, and at least
    /// half of its distinct words. `lines` are its inputs' lines of words, for repeats.
    pub(super) fn of<'a>(
        words: &BTreeSet<String>,
        lines: impl IntoIterator<Item = Vec<&'a str>>,
    ) -> Option<Deck> {
        let cards: Vec<(&str, char)> = words.iter().filter_map(|w| split(w)).collect();
        let ranks: BTreeSet<&str> = cards.iter().map(|c| c.0).collect();
        let suits: BTreeSet<char> = cards.iter().map(|c| c.1).collect();
        let lower = suits.iter().all(char::is_ascii_lowercase);
        let upper = suits.iter().all(char::is_ascii_uppercase);
        if cards.len() < 3 || cards.len() * 2 < words.len() || ranks.len() < 2 || suits.len() < 2 {
            return None;
        }
        if !(lower || upper) || (ranks.contains("10") && ranks.contains("T")) {
            return None;
        }
        let ten = ["10", "T"].into_iter().find(|t| ranks.contains(t));
        let mut in_order: Vec<&'static str> = RANKS.to_vec();
        if let Some(t) = ten {
            in_order.insert(9, t);
        }
        let repeats = lines.into_iter().any(|line| {
            let cards: Vec<&str> = line.into_iter().filter(|w| split(w).is_some()).collect();
            cards.iter().collect::<BTreeSet<_>>().len() < cards.len()
        });
        Some(Deck {
            ranks: in_order,
            suits: if lower {
                ['s', 'h', 'd', 'c']
            } else {
                ['S', 'H', 'D', 'C']
            },
            repeats,
        })
    }

    /// Whether one line of the task's inputs shows a card twice.
    pub(super) fn repeats(&self) -> bool {
        self.repeats
    }

    /// Whether `w` is a card of this deck.
    pub(super) fn holds(&self, w: &str) -> bool {
        split(w).is_some_and(|(r, s)| self.ranks.contains(&r) && self.suits.contains(&s))
    }

    /// Another card for `w` (a card of this deck): of the same rank, of the same suit, of a
    /// neighbouring rank, or any, and unless the deck repeats, none of `taken` (the other
    /// cards of its line). `None` when no such card is found in a few draws.
    pub(super) fn edit(&self, w: &str, taken: &[&str], rng: &mut impl Rng) -> Option<String> {
        let (rank, suit) = split(w)?;
        let at = self.ranks.iter().position(|r| *r == rank)?;
        let any_rank =
            |rng: &mut dyn rand::RngCore| self.ranks[rng.random_range(0..self.ranks.len())];
        let any_suit = |rng: &mut dyn rand::RngCore| self.suits[rng.random_range(0..4)];
        for _ in 0..20 {
            let (r, s) = match rng.random_range(0..4) {
                0 => (rank, any_suit(rng)),
                1 => (any_rank(rng), suit),
                2 => {
                    let next = if rng.random_bool(0.5) {
                        at.checked_sub(1)
                    } else {
                        Some(at + 1)
                    };
                    (
                        next.and_then(|i| self.ranks.get(i).copied())
                            .unwrap_or(rank),
                        suit,
                    )
                }
                _ => (any_rank(rng), any_suit(rng)),
            };
            let card = format!("{r}{s}");
            if card != w && (self.repeats || !taken.contains(&card.as_str())) {
                return Some(card);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn deck(words: &[&str], lines: Vec<Vec<&str>>) -> Option<Deck> {
        let words = words.iter().map(|w| w.to_string()).collect();
        Deck::of(&words, lines)
    }

    #[test]
    fn a_task_of_cards_gets_every_rank_and_suit_and_keeps_its_ten() {
        let d = deck(&["AS", "KD", "10H", "5C"], vec![vec!["AS", "KD"]]);
        let d = d.unwrap_or_else(|| panic!("no deck"));
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let mut seen = BTreeSet::new();
        for _ in 0..400 {
            let new = d.edit("KD", &["AS"], &mut rng).unwrap_or_default();
            assert!(d.holds(&new) && new != "KD" && new != "AS", "{new}");
            assert!(!new.starts_with('T'), "{new}");
            seen.insert(new);
        }
        for card in ["JD", "QD", "KS", "10D", "2D"] {
            assert!(seen.contains(card), "{card} never drawn: {seen:?}");
        }
    }

    #[test]
    fn words_that_are_mostly_not_cards_or_mix_their_case_make_no_deck() {
        assert!(deck(&["AS", "IS", "IT", "IN", "ON", "KD", "QH"], vec![]).is_none());
        assert!(deck(&["AS", "KD"], vec![]).is_none());
        assert!(deck(&["As", "KD", "QH"], vec![]).is_none());
        assert!(deck(&["Ts", "Kd", "Qh"], vec![]).is_some_and(|d| d.holds("Tc") && !d.holds("10c")));
    }

    #[test]
    fn a_line_that_repeats_a_card_lets_edits_repeat_cards() {
        let d = deck(&["AS", "KD", "QH"], vec![vec!["AS", "AS", "KD"]]);
        assert!(d.is_some_and(|d| d.repeats));
    }
}
