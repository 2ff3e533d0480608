CREATE TABLE customer (id integer primary key, name text not null);
