-- A person's language for the pages and mails (issue 30 point 4): null means "as the browser asks"
-- (Accept-Language); otherwise one of lib/i18n/locale.ts's LOCALES, set on /account. A nullable column without a
-- default rewrites nothing.
alter table users add column locale text check (locale is null or length(locale) <= 16);
