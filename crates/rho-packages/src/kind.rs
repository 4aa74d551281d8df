//! The four kinds of resource a package carries.

/// A resource type, named as in settings.json and package.json's `pi` object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `extensions`: `.ts`/`.js` files or folders with an entry.
    Extensions = 0,
    /// `skills`: `SKILL.md` folders (and top-level `.md` files).
    Skills = 1,
    /// `prompts`: Markdown prompt templates.
    Prompts = 2,
    /// `themes`: JSON theme files.
    Themes = 3,
}

impl Kind {
    /// All four, in pi's order.
    pub const ALL: [Kind; 4] = [Kind::Extensions, Kind::Skills, Kind::Prompts, Kind::Themes];

    /// The key in settings.json, package.json's `pi` object, and the conventional folder name.
    pub fn key(self) -> &'static str {
        match self {
            Kind::Extensions => "extensions",
            Kind::Skills => "skills",
            Kind::Prompts => "prompts",
            Kind::Themes => "themes",
        }
    }

    /// Whether a file of this name is a resource of this kind when a folder is searched.
    pub fn accepts(self, file_name: &str) -> bool {
        match self {
            Kind::Extensions => file_name.ends_with(".ts") || file_name.ends_with(".js"),
            Kind::Skills | Kind::Prompts => file_name.ends_with(".md"),
            Kind::Themes => file_name.ends_with(".json"),
        }
    }
}
