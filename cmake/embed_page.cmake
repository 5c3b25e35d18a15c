# embed_page.cmake: writes site/embed.html, the embed view (one step, for other
# sites' frames), from the built site/index.html: the same page and scripts, with
# data-view="embed" on its root element, which lab.js and the app read. A page of
# its own path so that a server can send it its own headers (README, "Embedding a
# step"): a URL fragment never reaches a server, and frame-ancestors is ignored in
# a <meta> policy.
#   cmake -DINDEX=site/index.html -DOUT=site/embed.html -P embed_page.cmake
file(READ "${INDEX}" page)
string(REPLACE "<html lang=\"en\">" "<html lang=\"en\" data-view=\"embed\">" embed "${page}")
if(embed STREQUAL page)
  message(FATAL_ERROR "embed_page: no <html lang=\"en\"> in ${INDEX}")
endif()
file(WRITE "${OUT}.tmp" "${embed}")
file(RENAME "${OUT}.tmp" "${OUT}")
